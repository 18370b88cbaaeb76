/**
 * The lead field table (src/modules/leads/fields.ts) is the one list of the lead's fields: the
 * OpenAPI document's Lead and request bodies, the export file's columns and the import's header
 * mapping come from it. These tests read the derived artefacts as users see them and compare
 * them with the table, so a shape that stops being derived (or drifts) fails here.
 */
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FieldSpec } from '../src/core/field-table';
import type { leads } from '../src/db/schema';
import { leadFields } from '../src/modules/leads/fields';
import { planColumns } from '../src/modules/imports/header-mapping';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { createLead } from './helpers/leads';
import { download, exportAndWait } from './cross-tenant/fixtures/jobs';

type LeadFieldSpec = FieldSpec<typeof leads>;
const table = Object.entries(leadFields.spec) as [string, LeadFieldSpec][];
const names = (keep: (field: LeadFieldSpec) => boolean) =>
  table.filter(([, field]) => keep(field)).map(([wire]) => wire);

describe('the lead field table', () => {
  let owner: SignedUp;
  let document: { components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> } };

  beforeAll(async () => {
    owner = await signupOrganization('Field table');
    document = (await call('GET', '/api/openapi.json')).body;
  });

  it('gives the OpenAPI Lead exactly its readable fields, in table order, each with its one description', () => {
    const lead = document.components.schemas.Lead;
    expect(Object.keys(lead.properties)).toEqual(names((field) => field.read !== undefined));
    for (const [wire, field] of table) expect(lead.properties[wire].description, wire).toBe(field.description);
  });

  it('gives the add body the fields writable on create and the update body those writable on update', () => {
    expect(Object.keys(document.components.schemas.AddLeadRequest.properties)).toEqual(
      names((field) => field.create !== undefined),
    );
    expect(Object.keys(document.components.schemas.UpdateLeadRequest.properties)).toEqual(
      names((field) => field.update !== undefined),
    );
    // Read-only fields exist and are in neither body.
    expect(names((field) => field.create === undefined && field.update === undefined)).toEqual(
      expect.arrayContaining(['id', 'score', 'status_text', 'created_at']),
    );
  });

  it('writes an export file whose header is exactly the exportable fields', async () => {
    await createLead(owner);
    const job = await exportAndWait(owner, { export_type: 'leads' });
    expect(job.status, JSON.stringify(job)).toBe('completed');
    const csv = await (await download(owner, job.id)).text();
    const header = Papa.parse<string[]>(csv.replace(/^\uFEFF/, ''), { skipEmptyLines: true }).data[0];
    expect(header).toHaveLength(new Set(header).size);
    expect(new Set(header)).toEqual(new Set(names((field) => field.export !== undefined)));
    expect(header).not.toContain('ai_information');
  });

  it('maps each exported header back on import: importable fields to themselves, custom_fields as JSON, the rest ignored', () => {
    const exported = names((field) => field.export !== undefined);
    const plans = planColumns(exported);
    exported.forEach((wire, index) => {
      const field = leadFields.spec[wire as keyof typeof leadFields.spec] as LeadFieldSpec;
      if (field.importAliases) expect(plans[index], wire).toEqual({ kind: 'field', field: wire });
      else if (wire === 'custom_fields') expect(plans[index]).toEqual({ kind: 'custom_json' });
      else expect(plans[index], wire).toEqual({ kind: 'ignore' });
    });
  });

  it('gives each import alias to one field, never shadowing a field name, and maps it to that field', () => {
    const aliases = table.flatMap(([wire, field]) => (field.importAliases ?? []).map((alias) => ({ wire, alias })));
    const spelled = aliases.map((entry) => entry.alias);
    expect(spelled).toHaveLength(new Set(spelled).size);
    expect(spelled.filter((alias) => alias in leadFields.spec)).toEqual([]);
    for (const { wire, alias } of aliases)
      expect(planColumns([alias])[0], alias).toEqual({ kind: 'field', field: wire });
  });
});
