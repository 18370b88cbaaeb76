/**
 * Notes on a lead. Adding or editing a note is sales activity: it writes a feed entry on the
 * lead and moves the lead's `last_activity_at`. A lead of another organization, or a deleted
 * lead, is a 404, and so are its notes.
 */
import type { z } from '@hono/zod-openapi';
import { and, eq, exists, ilike, isNull, or, sql } from 'drizzle-orm';
import { leadNotes, leads } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { diffFields, recordFeed } from '../feed';
import { leadActivityAfter, recordLeadActivity, requireLead } from '../leads';
import { noteListFilters, type AddNoteInput, type UpdateNoteInput } from './schemas';

type NoteRow = typeof leadNotes.$inferSelect;

function presentNote(row: Omit<NoteRow, 'organizationId'>) {
  return {
    id: row.id,
    lead_id: row.leadId,
    title: row.title,
    note: row.note,
    created_by: row.createdBy,
    created_at: isoTimestamp(row.createdAt) as string,
    updated_at: isoTimestamp(row.updatedAt) as string,
  };
}

const noteFields = {
  id: leadNotes.id,
  leadId: leadNotes.leadId,
  title: leadNotes.title,
  note: leadNotes.note,
  createdBy: leadNotes.createdBy,
  createdAt: leadNotes.createdAt,
  updatedAt: leadNotes.updatedAt,
};

/** A note of a live lead of the organization, else 404. */
async function findNote(ctx: TenantContext, id: number) {
  const [row] = await ctx.db
    .select(noteFields)
    .from(leadNotes)
    .innerJoin(leads, and(eq(leads.id, leadNotes.leadId), isNull(leads.deletedAt)))
    .where(tenantWhere(ctx, leadNotes, eq(leadNotes.id, id)));
  if (!row) throw new NotFound('Note', id);
  return row;
}

/** A live lead of the organization, as the condition of a write on its notes. */
function ofLiveLead(ctx: TenantContext) {
  return exists(
    ctx.db
      .select({ id: leads.id })
      .from(leads)
      .where(and(eq(leads.id, leadNotes.leadId), isNull(leads.deletedAt))),
  );
}

export async function addNote(ctx: TenantContext, input: AddNoteInput) {
  // One statement: the lead's check is the insert's own (no row is inserted, and none comes back,
  // for a lead that is not a live lead of the organization), and the lead's activity follows it.
  const result = await ctx.db.execute<{
    id: string | number;
    lead_id: string | number;
    title: string;
    note: string | null;
    created_by: string | number | null;
    created_at: string | Date;
    updated_at: string | Date;
  }>(sql`
    with inserted as (
      insert into ${leadNotes} (organization_id, lead_id, title, note, created_by)
      select ${ctx.orgId}::bigint, ${leads.id}, ${input.title}::text, ${input.note ?? null}::text, ${ctx.userId}::bigint
      from ${leads}
      where ${tenantWhere(ctx, leads, eq(leads.id, input.lead_id), isNull(leads.deletedAt))}
      returning id, lead_id, title, note, created_by, created_at, updated_at
    ), ${leadActivityAfter(ctx, 'inserted', {
      action: 'note_added',
      changes: sql`${JSON.stringify({ title: { from: null, to: input.title } })}::jsonb
        || jsonb_build_object('note_id', jsonb_build_object('from', null, 'to', inserted.id))`,
    })}
    select * from inserted`);
  const inserted = result.rows[0];
  if (!inserted) throw new NotFound('Lead', input.lead_id);
  return presentNote({
    id: Number(inserted.id),
    leadId: Number(inserted.lead_id),
    title: inserted.title,
    note: inserted.note,
    createdBy: inserted.created_by === null ? null : Number(inserted.created_by),
    createdAt: new Date(inserted.created_at),
    updatedAt: new Date(inserted.updated_at),
  });
}

export async function updateNote(ctx: TenantContext, id: number, input: UpdateNoteInput) {
  const before = await findNote(ctx, id);
  const [row] = await ctx.db
    .update(leadNotes)
    .set({
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.note !== undefined ? { note: input.note } : {}),
      updatedAt: sql`now()`,
    })
    .where(tenantWhere(ctx, leadNotes, eq(leadNotes.id, id)))
    .returning(noteFields);
  const changes = diffFields({ title: before.title, note: before.note }, { title: row.title, note: row.note });
  await recordLeadActivity(ctx, [
    { modelId: row.leadId, action: 'note_updated', changes: { note_id: { from: id, to: id }, ...changes } },
  ]);
  return presentNote(row);
}

export async function deleteNote(ctx: TenantContext, id: number) {
  // The delete is its own check: a note of another organization, or of a deleted lead, deletes nothing.
  const [note] = await ctx.db
    .delete(leadNotes)
    .where(tenantWhere(ctx, leadNotes, eq(leadNotes.id, id), ofLiveLead(ctx)))
    .returning(noteFields);
  if (!note) throw new NotFound('Note', id);
  await recordFeed(ctx, [
    {
      modelType: 'lead',
      modelId: note.leadId,
      action: 'note_deleted',
      changes: { note_id: { from: id, to: null }, title: { from: note.title, to: null } },
    },
  ]);
  return { id };
}

export const noteList = defineList({
  sort: { id: leadNotes.id, created_at: leadNotes.createdAt, updated_at: leadNotes.updatedAt, title: leadNotes.title },
  filters: noteListFilters,
  search: (term) => or(ilike(leadNotes.title, containsPattern(term)), ilike(leadNotes.note, containsPattern(term))),
  createdAt: leadNotes.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...noteFields, ...columns })
        .from(leadNotes)
        .$dynamic(),
    where: tenantWhere(ctx, leadNotes, eq(leadNotes.leadId, params.lead_id)),
  }),
  present: (row) => presentNote(row),
});
export const NoteListQuery = noteList.query;

export async function listNotes(ctx: TenantContext, params: z.output<typeof NoteListQuery>) {
  await requireLead(ctx, params.lead_id);
  return noteList.run(ctx, params);
}
