/**
 * Notes on a lead: list, add, update, delete. A lead (or note) of another organization is a 404.
 */
import { created, list, ok } from '../../core/http';
import { DeletedId } from '../../core/schemas';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { AddNoteBody, NoteSchema, UpdateNoteBody } from './schemas';
import { addNote, deleteNote, listNotes, NoteListQuery, updateNote } from './service';

export const leadNoteRoutes = createRouter();
const tags = ['Lead notes'];

leadNoteRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead/note/list',
    operationId: 'listLeadNotes',
    tags,
    summary: 'Notes of one lead; search_value matches title and note',
    description:
      'Notes of one lead (`lead_id`, required), newest first by default; `search_value` matches the title and the text. A lead of another organization, or deleted, is a 404.',
    auth: 'bearer',
    request: { query: NoteListQuery },
    responses: { 200: listEnvelope(NoteSchema) },
  }),
  async (c) => list(c, await listNotes(c.var.tenant, c.req.valid('query'))),
);

leadNoteRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/note/add',
    operationId: 'addLeadNote',
    tags,
    summary: 'Add a note to a lead (feed entry note_added; updates last_activity_at)',
    description:
      "Adds a note to a lead. Writes a `note_added` feed entry and moves the lead's `last_activity_at` to now.",
    auth: 'bearer',
    // One statement (the insert, the lead's activity and its feed entry) that stands alone: no BEGIN/COMMIT.
    transaction: false,
    request: { body: jsonBody(AddNoteBody) },
    responses: { 201: envelope(NoteSchema, 'Note added') },
  }),
  async (c) => created(c, await addNote(c.var.tenant, c.req.valid('json')), 'Note added'),
);

leadNoteRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/note/update/{id}',
    operationId: 'updateLeadNote',
    tags,
    summary: 'Change a note’s title or text (feed entry note_updated)',
    description: "Changes a note's title or text; only the fields sent change. Writes a `note_updated` feed entry.",
    auth: 'bearer',
    // One statement (the row locked as it was, the update, the lead's activity and the feed entry) that stands alone: no BEGIN/COMMIT.
    transaction: false,
    request: { params: idParam(), body: jsonBody(UpdateNoteBody) },
    responses: { 200: envelope(NoteSchema, 'Note updated') },
  }),
  async (c) => ok(c, await updateNote(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 'Note updated'),
);

leadNoteRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/lead/note/delete/{id}',
    operationId: 'deleteLeadNote',
    tags,
    summary: 'Delete a note (feed entry note_deleted)',
    description: 'Deletes a note for good. Writes a `note_deleted` feed entry.',
    auth: 'bearer',
    // One statement (the delete and its feed entry) that stands alone: no BEGIN/COMMIT.
    transaction: false,
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'Note deleted') },
  }),
  async (c) => ok(c, await deleteNote(c.var.tenant, c.req.valid('param').id), 'Note deleted'),
);
