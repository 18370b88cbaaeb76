/**
 * The saved query's one field table: the bodies, the SavedQuery component, the selection and
 * the presenter derive from it (core/field-table.ts).
 */
import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { defineFields, storedAs } from '../../core/field-table';
import { isoTimestamp, timestamp } from '../../core/schemas';
import { savedQueries } from '../../db/schema';
import { QueryDefinition, type QueryDefinitionValue, scope, SCOPES } from './definition';
import { QUERY_MODULES } from './modules';

const name = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const description = z.string().trim().max(500, 'must be at most 500 characters').nullish();
const iso = (value: Date) => isoTimestamp(value) as string;

export const savedQueryFields = defineFields(
  savedQueries,
  {
    id: {
      column: 'id',
      description: 'The query’s id (the path id of GET, PUT, DELETE and execute)',
      read: z.number().int(),
    },
    name: {
      column: 'name',
      description: 'Display name, 1 to 100 characters',
      read: z.string(),
      create: name.openapi({ example: 'Leads by status' }),
      update: name.optional(),
    },
    description: {
      column: 'description',
      description: 'What it shows, up to 500 characters; null clears it',
      read: z.string().nullable(),
      create: description,
      update: description,
    },
    scope: {
      column: 'scope',
      description:
        'Who sees it: personal (its owner only; the default), team or workspace (the whole organization). Workspace scope is set by admins and managers only',
      read: z.enum(SCOPES),
      present: storedAs<(typeof SCOPES)[number]>(),
      create: scope.optional(),
      update: scope.optional(),
    },
    module: {
      column: 'module',
      description: 'The records queried: the definition’s module (read-only)',
      read: z.enum(QUERY_MODULES),
      present: storedAs<(typeof QUERY_MODULES)[number]>(),
    },
    definition: {
      column: 'definition',
      description: 'The declarative aggregate (SavedQueryDefinition); an update replaces it whole',
      read: QueryDefinition,
      present: storedAs<QueryDefinitionValue>(),
      create: QueryDefinition,
      update: QueryDefinition.optional(),
    },
    user_id: {
      column: 'userId',
      description: 'The owner; null for the organization’s default queries',
      read: z.number().int().nullable(),
    },
    is_default: {
      select: sql<boolean>`${savedQueries.defaultKey} is not null`,
      description: 'One of the queries every organization starts with (read-only)',
      read: z.boolean(),
    },
    created_at: { column: 'createdAt', description: 'When it was created', read: timestamp(), present: iso },
    updated_at: { column: 'updatedAt', description: 'When it last changed', read: timestamp(), present: iso },
  },
  {
    // Scope; `defaultKey` is read as is_default.
    internal: ['organizationId', 'defaultKey'],
  },
);
