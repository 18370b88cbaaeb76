/**
 * Notes on a lead. Adding or editing a note is sales activity: it writes a feed entry on the
 * lead and moves the lead's `last_activity_at`. A lead of another organization, or a deleted
 * lead, is a 404, and so are its notes.
 */
import type { z } from '@hono/zod-openapi';
import { and, eq, ilike, isNull, or, sql } from 'drizzle-orm';
import { leadNotes, leads } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { diffFields, recordFeed } from '../feed';
import { requireLead, touchLeadActivity } from '../leads';
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

export async function addNote(ctx: TenantContext, input: AddNoteInput) {
  await requireLead(ctx, input.lead_id);
  const [row] = await ctx.db
    .insert(leadNotes)
    .values({
      organizationId: ctx.orgId,
      leadId: input.lead_id,
      title: input.title,
      note: input.note ?? null,
      createdBy: ctx.userId,
    })
    .returning(noteFields);
  await recordFeed(ctx, [
    {
      modelType: 'lead',
      modelId: input.lead_id,
      action: 'note_added',
      changes: { note_id: { from: null, to: row.id }, title: { from: null, to: row.title } },
    },
  ]);
  await touchLeadActivity(ctx, [input.lead_id]);
  return presentNote(row);
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
  await recordFeed(ctx, [
    {
      modelType: 'lead',
      modelId: row.leadId,
      action: 'note_updated',
      changes: { note_id: { from: id, to: id }, ...changes },
    },
  ]);
  await touchLeadActivity(ctx, [row.leadId]);
  return presentNote(row);
}

export async function deleteNote(ctx: TenantContext, id: number) {
  const note = await findNote(ctx, id);
  await ctx.db.delete(leadNotes).where(tenantWhere(ctx, leadNotes, eq(leadNotes.id, id)));
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
