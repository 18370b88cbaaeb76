// `--only import`: a CSV import and an export of the same leads through the real queue
// consumer and simulated R2, first at a tenth of the rows and then at all of them, with wall
// times, the workerd process's memory, and the ratios between the two runs.
import { sleep } from './bench-stack.mjs';

function leadsCsv(count) {
  const lines = ['First Name,Last Name,Email Address,Phone,Company,City,Country,Lead Status,Favourite Colour'];
  for (let i = 1; i <= count; i++) {
    lines.push(
      `First${i},Last${i},bench-${i}@example.com,+1555${String(i).padStart(7, '0')},Company ${i % 500},City ${i % 70},Country ${i % 20},New,colour ${i % 9}`,
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

export async function measureImportExport(stack, { rows, log, deadline }) {
  const { api } = stack;
  let lost = false;
  const waitFor = async (token, path, id, what) => {
    for (;;) {
      deadline(what);
      const response = await api('GET', `${path}?limit=100`, { token });
      const job = (await response.json()).data?.find((candidate) => candidate.id === id);
      log(`${what}: ${job?.status} ${job?.processed ?? 0}/${job?.total ?? '?'}`);
      if (job?.status === 'completed') return job;
      if (job?.status === 'failed') throw new Error(`${what} failed: ${job.error}`);
      await sleep(1000);
    }
  };

  /** One import of `count` rows into a new organization, then an export of them; memory measured over the phase. */
  const runPhase = async (count) => {
    const { token } = await stack.signup(`Bench ${count} ${Date.now()}`);
    const baseline = stack.workerdMemory()?.rss ?? 0;
    stack.resetPeakRss(baseline);

    const csv = leadsCsv(count);
    const form = new FormData();
    form.set('file', new File([csv], 'bench.csv', { type: 'text/csv' }));
    log(`uploading ${count} rows (${csv.length} bytes)`);
    const importStart = Date.now();
    const upload = await api('POST', '/api/lead/lead-imports', { token, body: form });
    if (upload.status !== 202) throw new Error(`upload: ${upload.status} ${await upload.text()}`);
    const imported = await waitFor(token, '/api/import-job/list', (await upload.json()).data.id, `importing ${count}`);
    const importSeconds = (Date.now() - importStart) / 1000;

    log(`import of ${count} completed in ${importSeconds} s; exporting`);
    const exportStart = Date.now();
    const created = await api('POST', '/api/exports/create', { token, json: { export_type: 'leads' } });
    if (created.status !== 202) throw new Error(`export: ${created.status} ${await created.text()}`);
    const exported = await waitFor(token, '/api/exports/list', (await created.json()).data.id, `exporting ${count}`);
    const file = await api('GET', `/api/exports/download/${exported.id}`, { token });
    const bytes = (await file.arrayBuffer()).byteLength;
    const exportSeconds = (Date.now() - exportStart) / 1000;
    if (imported.created !== count || exported.total !== count) lost = true;
    return {
      rows: count,
      upload_bytes: csv.length,
      import_seconds: importSeconds,
      import_rows_per_second: Math.round(imported.processed / importSeconds),
      imported: { created: imported.created, failed: imported.failed, skipped: imported.skipped },
      export_seconds: exportSeconds,
      export_rows_per_second: Math.round(exported.total / exportSeconds),
      export_bytes: bytes,
      workerd_rss_baseline_mb: Math.round(baseline),
      workerd_rss_growth_mb: Math.round(Math.max(0, stack.peakRss() - baseline)),
    };
  };

  // The same work at a tenth of the size first, in the same process: the ratios below say
  // whether time grows linearly and memory stays flat as the row count grows tenfold.
  const small = await runPhase(Math.max(1, Math.round(rows / 10)));
  const full = await runPhase(rows);
  const ratio = (a, b) => (b > 0 ? Number((a / b).toFixed(2)) : null);
  return {
    lost_rows: lost,
    result: {
      small,
      full,
      ratios: {
        import_rows_per_second_full_vs_small: ratio(full.import_rows_per_second, small.import_rows_per_second),
        export_rows_per_second_full_vs_small: ratio(full.export_rows_per_second, small.export_rows_per_second),
        memory_growth_full_vs_small: ratio(
          Math.max(1, full.workerd_rss_growth_mb),
          Math.max(1, small.workerd_rss_growth_mb),
        ),
        full_peak_rss_vs_worker_limit_128mb: ratio(full.workerd_rss_baseline_mb + full.workerd_rss_growth_mb, 128),
      },
      note: 'RSS of the whole local workerd process (runtime + every isolate), an upper bound for the Worker isolate; growth is peak minus the RSS at the start of the phase (1 MB floor in the ratio)',
    },
  };
}
