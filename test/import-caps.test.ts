/**
 * Import abuse: a tiny XLSX of empty rows, a cell reference past Excel's last column, and a
 * file over the row cap. Each is bounded: empty rows are skipped, a forged column fails the job
 * with a clear error, and a file over the cap fails before any row is imported.
 */
import { env } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client';
import { readConfig } from '../src/env';
import { assertRowsWithin } from '../src/modules/imports/spreadsheet';
import { readCsvRows } from '../src/modules/imports/csv-reader';
import { csvOf, importAndWait, runJob, unqueuedImportJob } from './cross-tenant/fixtures/jobs';
import { call, signupOrganization } from './helpers/api';

const MAIN = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';

function workbook(sheetRows: string): Uint8Array {
  return zipSync({
    '[Content_Types].xml': strToU8('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
    'xl/workbook.xml': strToU8(
      `<workbook ${MAIN} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ),
    'xl/_rels/workbook.xml.rels': strToU8(
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    ),
    'xl/worksheets/sheet1.xml': strToU8(`<worksheet ${MAIN}><sheetData>${sheetRows}</sheetData></worksheet>`),
  });
}

const cell = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const header = `<row r="1">${cell('A1', 'First Name')}${cell('B1', 'Last Name')}</row>`;

describe('import caps', () => {
  it('skips empty XLSX rows: 20 000 of them import nothing and write no row outcomes', async () => {
    const org = await signupOrganization('Caps');
    const empty = Array.from({ length: 20_000 }, (_, i) => `<row r="${i + 2}"/>`).join('');
    const data = `<row r="20002">${cell('A20002', 'Ada')}${cell('B20002', 'Lovelace')}</row>`;
    const job = await importAndWait(org, workbook(header + empty + data), { name: 'empty.xlsx' });
    expect(job).toMatchObject({ status: 'completed', total: 1, created: 1, failed: 0 });
    const rows = await call('GET', `/api/import-job/${job.id}/rows`, { token: org.token });
    expect(rows.body.total).toBe(0);
  });

  it('fails the job with a clear error for a cell past column XFD, before padding any row', async () => {
    const org = await signupOrganization('Caps');
    const forged = `<row r="2">${cell('A2', 'Ada')}${cell('ZZZZZZZZ2', 'Lovelace')}</row>`;
    const job = await importAndWait(org, workbook(header + forged), { name: 'wide.xlsx' });
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/beyond column XFD/);
    expect(job.created).toBe(0);
  });

  it('fails the job with a clear error for a row numbered past 1 048 576, the last a spreadsheet has', async () => {
    const org = await signupOrganization('Caps');
    const forged = `<row r="2147483648">${cell('A2147483648', 'Ada')}${cell('B2147483648', 'Lovelace')}</row>`;
    const job = await importAndWait(org, workbook(header + forged), { name: 'tall.xlsx' });
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/beyond row 1048576/);
    expect(job.created).toBe(0);
  });

  it('refuses a file with more data rows than the cap, counting no further than the cap', async () => {
    const csv = csvOf([['First Name', 'Last Name'], ...Array.from({ length: 5 }, (_, i) => [`F${i}`, `L${i}`])]);
    const stream = () => new Blob([csv]).stream();
    await expect(assertRowsWithin(readCsvRows(stream(), csv.length), 5)).resolves.toBeUndefined();
    await expect(assertRowsWithin(readCsvRows(stream(), csv.length), 4)).rejects.toThrow(/more than 4 rows/);
  });
});

describe('POST /api/import-job/:id/cancel', () => {
  it('cancels a queued import, whose delivery then imports nothing, and answers 409 import_ended once it has ended', async () => {
    const org = await signupOrganization('Cancel');
    const jobId = await unqueuedImportJob(
      org,
      csvOf([
        ['First Name', 'Last Name'],
        ['Ada', 'Lovelace'],
      ]),
    );
    const cancelled = await call('POST', `/api/import-job/${jobId}/cancel`, { token: org.token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ id: jobId, status: 'cancelled' });
    const delivered = await runJob(org, 'import', jobId);
    expect(delivered).toMatchObject({ status: 'cancelled', created: 0 });
    const again = await call('POST', `/api/import-job/${jobId}/cancel`, { token: org.token });
    expect([again.status, again.body.error.code, again.body.error.details]).toEqual([
      409,
      'import_ended',
      { status: 'cancelled' },
    ]);
  });
});

describe('a row the database refuses', () => {
  it('becomes that row’s error, without the database’s text, and every other row imports', async () => {
    const org = await signupOrganization('Refused');
    const handle = openDatabase(readConfig(env));
    const trigger = `refuse_lead_${org.orgId}`;
    // A value validation lets through but the database refuses (a data exception, class 22), for this organization only.
    await handle.db.execute(
      sql.raw(`create function ${trigger}() returns trigger language plpgsql as $$
        begin
          if new.organization_id = ${org.orgId} and new.first_name = 'Refused' then
            raise exception 'value refused: secret internals' using errcode = '22023';
          end if;
          return new;
        end $$;
        create trigger ${trigger} before insert on leads for each row execute function ${trigger}();`),
    );
    try {
      const rows = Array.from({ length: 30 }, (_, i) => [i === 17 ? 'Refused' : `First${i}`, `Last${i}`]);
      const job = await importAndWait(org, csvOf([['First Name', 'Last Name'], ...rows]));
      expect(job).toMatchObject({ status: 'completed', total: 30, created: 29, failed: 1 });
      const outcomes = await call('GET', `/api/import-job/${job.id}/rows`, { token: org.token });
      expect(
        outcomes.body.data.map((row: { row_number: number; field: string; message: string }) => [
          row.row_number,
          row.field,
          row.message,
        ]),
      ).toEqual([[19, 'row', 'the database refused a value of this row (SQLSTATE 22023)']]);
    } finally {
      await handle.db.execute(sql.raw(`drop trigger ${trigger} on leads; drop function ${trigger}();`));
      await handle.close();
    }
  });
});
