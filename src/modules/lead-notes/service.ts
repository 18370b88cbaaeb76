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
import { changedFieldsSql, changesSql, type FeedFields, feedEntriesFrom, fieldValuesSql } from '../feed';
import { leadActivityAfter, requireLead } from '../leads';
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

/** A note as a statement of ours returns it (`returning id, lead_id, …`). */
interface NoteWire extends Record<string, unknown> {
  id: string | number;
  lead_id: string | number;
  title: string;
  note: string | null;
  created_by: string | number | null;
  created_at: string | Date;
  updated_at: string | Date;
}

function noteFromWire(row: NoteWire): Omit<NoteRow, 'organizationId'> {
  return {
    id: Number(row.id),
    leadId: Number(row.lead_id),
    title: row.title,
    note: row.note,
    createdBy: row.created_by === null ? null : Number(row.created_by),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
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
  const result = await ctx.db.execute<NoteWire>(sql`
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
  return presentNote(noteFromWire(inserted));
}

/** What a note's `note_updated` entry compares. */
const NOTE_FIELDS: FeedFields = [
  ['title', leadNotes.title],
  ['note', leadNotes.note],
];

export async function updateNote(ctx: TenantContext, id: number, input: UpdateNoteInput) {
  // One statement: the note (of a live lead of the organization, else 404) locked and read as it
  // was, the update, the lead's activity and the feed entry of what changed.
  const sets = [
    input.title !== undefined ? sql`title = ${input.title}::text` : undefined,
    input.note !== undefined ? sql`note = ${input.note}::text` : undefined,
    sql`updated_at = now()`,
  ].filter((set) => set !== undefined);
  const result = await ctx.db.execute<NoteWire>(sql`
    with locked as (
      select ${leadNotes.id} as id, ${fieldValuesSql('lead_notes', NOTE_FIELDS)} as was from ${leadNotes}
      where ${tenantWhere(ctx, leadNotes, eq(leadNotes.id, id), ofLiveLead(ctx))}
      for no key update
    ), updated as (
      update ${leadNotes} set ${sql.join(sets, sql`, `)}
      from locked where ${leadNotes.id} = locked.id
      returning ${leadNotes.id}, ${leadNotes.leadId}, ${leadNotes.title}, ${leadNotes.note}, ${leadNotes.createdBy},
        ${leadNotes.createdAt}, ${leadNotes.updatedAt}, locked.was
    ), ${leadActivityAfter(ctx, 'updated', {
      action: 'note_updated',
      changes: sql`jsonb_build_object('note_id', jsonb_build_object('from', updated.id, 'to', updated.id))
        || ${changedFieldsSql(sql`updated.was`, fieldValuesSql('updated', NOTE_FIELDS))}`,
    })}
    select id, lead_id, title, note, created_by, created_at, updated_at from updated`);
  const updated = result.rows[0];
  if (!updated) throw new NotFound('Note', id);
  return presentNote(noteFromWire(updated));
}

export async function deleteNote(ctx: TenantContext, id: number) {
  // One statement: the delete is its own check (a note of another organization, or of a deleted
  // lead, deletes nothing and records nothing), and its feed entry follows it.
  const result = await ctx.db.execute<{ id: string }>(sql`
    with deleted as (
      delete from ${leadNotes}
      where ${tenantWhere(ctx, leadNotes, eq(leadNotes.id, id), ofLiveLead(ctx))}
      returning id, lead_id, title
    ), feed as (${feedEntriesFrom(ctx, {
      from: sql`deleted`,
      modelType: 'lead',
      modelId: sql`deleted.lead_id`,
      action: 'note_deleted',
      changes: changesSql({ note_id: { from: sql`deleted.id` }, title: { from: sql`deleted.title` } }),
    })})
    select id from deleted`);
  if (!result.rows[0]) throw new NotFound('Note', id);
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
