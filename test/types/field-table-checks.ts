/**
 * Type-level test of the field table's compile-time checks (core/field-table.ts): `tsc --noEmit`
 * (npm run typecheck, CI) compiles this file, and each `@ts-expect-error` fails the build if the
 * table under it compiles. So a resource whose table misses a column, names a column the drizzle
 * table lacks, lists a field's column as internal, presents a value the wrong way, or leaves an
 * exported field out of its export order cannot be built. Not a vitest file: nothing runs.
 */
import { z } from '@hono/zod-openapi';
import { defineFields } from '../../src/core/field-table';
import { isoTimestamp } from '../../src/core/schemas';
import { pipelines } from '../../src/db/schema';

const iso = (value: Date) => isoTimestamp(value) as string;

/** Every column of `pipelines` as a field, but `region`, which each case adds or leaves out. */
const sound = {
  id: { column: 'id', description: 'Id', read: z.number().int(), export: true },
  name: { column: 'name', description: 'Name', read: z.string(), create: z.string(), export: true },
  description: { column: 'description', description: 'Description', read: z.string().nullable() },
  max_deal_limit: { column: 'maxDealLimit', description: 'Limit', read: z.number().nullable() },
  state_id: { column: 'stateId', description: 'State', read: z.number().int() },
  is_default: { column: 'isDefault', description: 'Default', read: z.boolean() },
  created_at: { column: 'createdAt', description: 'Created', read: z.string(), present: iso },
  updated_at: { column: 'updatedAt', description: 'Updated', read: z.string(), present: iso },
} as const;
const region = { column: 'region', description: 'Region', read: z.string().nullable() } as const;

// A sound table compiles.
export const complete = defineFields(
  pipelines,
  { ...sound, region },
  { internal: ['organizationId', 'createdBy'], exportOrder: ['name', 'id'] },
);

export const missingField = defineFields(
  pipelines,
  // @ts-expect-error: the column `region` has no field and is not internal.
  { ...sound },
  { internal: ['organizationId', 'createdBy'] },
);

export const unknownColumn = defineFields(
  pipelines,
  {
    ...sound,
    region,
    // @ts-expect-error: a field naming a column `pipelines` does not have.
    territory: { column: 'territory', description: 'Territory', read: z.string() },
  },
  { internal: ['organizationId', 'createdBy'] },
);

export const internalField = defineFields(
  pipelines,
  // @ts-expect-error: `createdBy` is read by a field and also listed as internal.
  { ...sound, region, created_by: { column: 'createdBy', description: 'By', read: z.number().int().nullable() } },
  { internal: ['organizationId', 'createdBy'] },
);

export const unpresentedDate = defineFields(
  pipelines,
  // @ts-expect-error: created_at selects a Date, and the wire says a string: it needs a presenter.
  { ...sound, region, created_at: { column: 'createdAt', description: 'Created', read: z.string() } },
  { internal: ['organizationId', 'createdBy'] },
);

export const incompleteExportOrder = defineFields(
  pipelines,
  // @ts-expect-error: `name` is exported but missing from the export order.
  { ...sound, region },
  { internal: ['organizationId', 'createdBy'], exportOrder: ['id'] },
);
