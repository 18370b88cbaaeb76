/**
 * Web forms of an organization (bearer CRUD) and the lookup of a form by its public link. A
 * form of another organization is a 404 like any record.
 */
import type { z } from '@hono/zod-openapi';
import { and, eq, ilike, sql } from 'drizzle-orm';
import { base64url } from 'jose';
import { referencesExist } from '../../db/references';
import { organizations, webForms } from '../../db/schema';
import type { WebFormField } from '../../db/schema';
import type { Queryable } from '../../db/client';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { type AddWebFormInput, DEFAULT_FORM_FIELDS, type UpdateWebFormInput, type WebFormView } from './schemas';

type WebFormRow = typeof webForms.$inferSelect;

/** 18 random bytes: 24 base64url characters, 144 bits; unique by index besides. */
export function newFormLink(): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(18)));
}

export function formPagePath(formLink: string): string {
  return `/api/v1/web-form/${formLink}`;
}

export function presentForm(row: WebFormRow, origin: string): WebFormView {
  return {
    id: row.id,
    name: row.name,
    form_link: row.formLink,
    url: `${origin}${formPagePath(row.formLink)}`,
    fields: row.fields.map((field) => ({ name: field.name, required: field.required, label: field.label ?? null })),
    redirect_url: row.redirectUrl,
    thank_you_message: row.thankYouMessage,
    tags: row.tags,
    assigned_to: row.assignedTo,
    created_at: isoTimestamp(row.createdAt) as string,
    updated_at: isoTimestamp(row.updatedAt) as string,
  } as WebFormView;
}

export async function createWebForm(ctx: TenantContext, input: AddWebFormInput, origin: string) {
  await referencesExist(ctx, { assigned_to: input.assigned_to });
  const [row] = await ctx.db
    .insert(webForms)
    .values({
      organizationId: ctx.orgId,
      name: input.name,
      formLink: newFormLink(),
      fields: (input.fields ?? DEFAULT_FORM_FIELDS) as WebFormField[],
      redirectUrl: input.redirect_url ?? null,
      thankYouMessage: input.thank_you_message ?? null,
      tags: input.tags ?? [],
      assignedTo: input.assigned_to ?? null,
      createdBy: ctx.userId,
    })
    .returning();
  return presentForm(row, origin);
}

export async function updateWebForm(ctx: TenantContext, id: number, input: UpdateWebFormInput, origin: string) {
  await referencesExist(ctx, { assigned_to: input.assigned_to });
  const set: Record<string, unknown> = { updatedAt: sql`now()` };
  if (input.name !== undefined) set.name = input.name;
  if (input.fields !== undefined) set.fields = input.fields as WebFormField[];
  if (input.redirect_url !== undefined) set.redirectUrl = input.redirect_url;
  if (input.thank_you_message !== undefined) set.thankYouMessage = input.thank_you_message;
  if (input.tags !== undefined) set.tags = input.tags;
  if (input.assigned_to !== undefined) set.assignedTo = input.assigned_to;
  const [row] = await ctx.db
    .update(webForms)
    .set(set)
    .where(tenantWhere(ctx, webForms, eq(webForms.id, id)))
    .returning();
  if (!row) throw new NotFound('Web form', id);
  forgetWebForm(row.formLink);
  return presentForm(row, origin);
}

export async function deleteWebForm(ctx: TenantContext, id: number): Promise<{ id: number }> {
  const [row] = await ctx.db
    .delete(webForms)
    .where(tenantWhere(ctx, webForms, eq(webForms.id, id)))
    .returning({ id: webForms.id, formLink: webForms.formLink });
  if (!row) throw new NotFound('Web form', id);
  forgetWebForm(row.formLink);
  return { id: row.id };
}

export const webFormList = defineList({
  sort: { id: webForms.id, name: webForms.name, created_at: webForms.createdAt },
  search: (term) => ilike(webForms.name, containsPattern(term)),
  createdAt: webForms.createdAt,
  base: (ctx) => ({
    rows: (columns) =>
      ctx.db
        .select({ form: webForms, ...columns })
        .from(webForms)
        .$dynamic(),
    where: tenantWhere(ctx, webForms, and()),
  }),
});
export const WebFormListQuery = webFormList.query;

export async function listWebForms(ctx: TenantContext, params: z.output<typeof WebFormListQuery>, origin: string) {
  const page = await webFormList.run(ctx, params);
  return { ...page, rows: page.rows.map((row) => presentForm(row.form, origin)) };
}

/**
 * Forms by link, for the public page and its submissions: looked up outside any tenant scope (the
 * link names the organization), kept in the isolate for FORM_CACHE_TTL_MS so a warm isolate
 * renders and accepts submissions without this read. Updates and deletes drop the entry in the
 * isolate that makes them; other isolates see them within the TTL.
 */
export const FORM_CACHE_TTL_MS = 60_000;
const formCache = new Map<string, { form: WebFormRow | null; until: number }>();

export function forgetWebForm(formLink: string): void {
  formCache.delete(formLink);
}

export async function findFormByLink(db: Queryable, formLink: string): Promise<WebFormRow | null> {
  const now = Date.now();
  const cached = formCache.get(formLink);
  if (cached && cached.until > now) return cached.form;
  // A form of an organization that is not active answers like an unknown link, as its API keys
  // and its users' tokens are refused.
  const [found] = await db
    .select({ form: webForms, organizationState: organizations.stateId })
    .from(webForms)
    .innerJoin(organizations, eq(organizations.id, webForms.organizationId))
    .where(eq(webForms.formLink, formLink));
  const row = found?.organizationState === 1 ? found.form : undefined;
  if (formCache.size >= 10_000) formCache.delete(formCache.keys().next().value as string);
  formCache.set(formLink, { form: row ?? null, until: now + FORM_CACHE_TTL_MS });
  return row ?? null;
}
