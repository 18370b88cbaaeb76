/**
 * AI email drafts (spec "AI tools and email drafts"): write one for a lead, list a lead's, approve;
 * edit, reject and regenerate beyond the spec. A draft's text is charged `email_draft` whenever a
 * model writes it (generate, each bulk item, regenerate). Changing the text (edit, regenerate)
 * returns an approved draft to `draft`: an approval is of the text that will be sent.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { aiEmailDrafts } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { Conflict, NotFound } from '../../core/errors';
import { defineList } from '../../core/list';
import type { Generation } from '../../providers/ai/interface';
import { structuredOutput } from '../../providers/ai/structured';
import { requireLead } from '../leads';
import { draftFields, type DraftStatus } from './draft-fields';
import { paidGeneration, type PaidCall } from './generation';
import { oneLeadFacts } from './lead-facts';
import { emailDraftPrompt } from './prompts/email-draft.v1';
import { EmailAnswer } from './tool-schemas';
import { DraftListFilters, type UpdateDraftBody } from './draft-schemas';

export type DraftView = ReturnType<typeof draftFields.present>;

/** The stored columns of a model's text: subject, body and where they came from. */
export function writtenColumns(generation: Generation) {
  const email = structuredOutput(generation, EmailAnswer);
  return {
    subject: email.subject.slice(0, 255),
    body: email.body,
    provider: generation.provider,
    model: generation.model,
    promptVersion: generation.prompt_version,
  };
}

export async function generateDraft(call: PaidCall, leadId: number, persona: string | undefined) {
  const lead = await oneLeadFacts(call.ctx, leadId);
  return paidGeneration(
    call,
    'email_draft',
    emailDraftPrompt,
    { lead, persona: persona ?? '' },
    async (tx, generation, charge) => {
      const [row] = await tx
        .insert(aiEmailDrafts)
        .values({
          organizationId: call.ctx.orgId,
          leadId,
          persona: persona ?? null,
          ...writtenColumns(generation),
          reservationId: charge.reservation_id,
          createdBy: call.ctx.userId,
        })
        .returning(draftFields.selection);
      return draftFields.present(row);
    },
  );
}

/** Bound from the path, never a query parameter (the route's query omits it). */
const leadIdFilter = z.number().int().optional();

export const draftList = defineList({
  sort: { id: aiEmailDrafts.id, created_at: aiEmailDrafts.createdAt, updated_at: aiEmailDrafts.updatedAt },
  filters: { ...DraftListFilters, lead_id: leadIdFilter },
  search: (term) => sql`(${aiEmailDrafts.subject} ilike ${`%${term.replace(/[\\%_]/g, '\\$&')}%`})`,
  createdAt: aiEmailDrafts.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...draftFields.selection, ...columns })
        .from(aiEmailDrafts)
        .$dynamic(),
    where: tenantWhere(
      ctx,
      aiEmailDrafts,
      eq(aiEmailDrafts.leadId, params.lead_id ?? 0),
      params.status ? inArray(draftFields.spec.status.select, params.status) : undefined,
    ),
  }),
  present: (row) => draftFields.present(row),
});

export const DraftListQuery = draftList.query.omit({ lead_id: true });

export async function listDrafts(ctx: TenantContext, leadId: number, params: z.output<typeof DraftListQuery>) {
  // The page first: a malformed cursor is a 400 whatever the lead; an empty page of another
  // organization's lead is then a 404.
  const page = await draftList.run(ctx, { ...params, lead_id: leadId });
  if (page.rows.length === 0) await requireLead(ctx, leadId);
  return page;
}

/** The draft, locked for this transaction; 404 when it is not the organization's. */
export async function lockDraft(tx: Pick<TenantContext, 'db' | 'orgId'>, draftId: number) {
  const [row] = await tx.db
    .select(draftFields.selection)
    .from(aiEmailDrafts)
    .where(tenantWhere(tx, aiEmailDrafts, eq(aiEmailDrafts.id, draftId)))
    .for('update');
  if (!row) throw new NotFound('Draft', draftId);
  return draftFields.present(row);
}

export function draftStateConflict(draft: DraftView, action: string, allowed: readonly DraftStatus[]): Conflict {
  const code = action === 'send' ? 'draft_not_approved' : 'invalid_draft_state';
  return new Conflict(
    `Draft ${draft.id} is ${draft.status}: only a draft that is ${allowed.join(' or ')} can be ${action === 'send' ? 'sent' : `${action}d`}`,
    code,
    { draft_id: draft.id, status: draft.status },
  );
}

async function transition(
  ctx: TenantContext,
  draftId: number,
  action: string,
  allowed: readonly DraftStatus[],
  set: Record<string, unknown>,
) {
  const draft = await lockDraft(ctx, draftId);
  if (!allowed.includes(draft.status)) throw draftStateConflict(draft, action, allowed);
  // The update is the request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  const [row] = await ctx.db
    .update(aiEmailDrafts)
    .set({ ...set, updatedAt: sql`now()` })
    .where(tenantWhere(ctx, aiEmailDrafts, eq(aiEmailDrafts.id, draftId)))
    .returning(draftFields.selection);
  return draftFields.present(row);
}

export function approveDraft(ctx: TenantContext, draftId: number) {
  return transition(ctx, draftId, 'approve', ['draft'], {
    status: 'approved',
    approvedBy: ctx.userId,
    approvedAt: sql`now()`,
  });
}

export function rejectDraft(ctx: TenantContext, draftId: number) {
  return transition(ctx, draftId, 'reject', ['draft', 'approved'], {
    status: 'rejected',
    rejectedBy: ctx.userId,
    rejectedAt: sql`now()`,
  });
}

const unapproved = { status: 'draft' as const, approvedBy: null, approvedAt: null, rejectedBy: null, rejectedAt: null };

export function editDraft(ctx: TenantContext, draftId: number, input: z.output<typeof UpdateDraftBody>) {
  return transition(ctx, draftId, 'update', ['draft', 'approved'], {
    ...unapproved,
    ...(input.subject !== undefined ? { subject: input.subject } : {}),
    ...(input.body !== undefined ? { body: input.body } : {}),
  });
}

/** New text from the model (charged), back to `draft`. Not once it was handed to a mail account. */
export async function regenerateDraft(call: PaidCall, draftId: number, persona: string | undefined) {
  const allowed: DraftStatus[] = ['draft', 'approved', 'rejected'];
  const current = await lockDraft(call.ctx, draftId);
  if (!allowed.includes(current.status)) throw draftStateConflict(current, 'regenerate', allowed);
  const lead = await oneLeadFacts(call.ctx, current.lead_id);
  const voice = persona ?? current.persona ?? '';
  return paidGeneration(
    call,
    'email_draft',
    emailDraftPrompt,
    { lead, persona: voice },
    async (tx: Transaction, generation, charge) => {
      const [row] = await tx
        .update(aiEmailDrafts)
        .set({
          ...unapproved,
          ...writtenColumns(generation),
          persona: voice || null,
          reservationId: charge.reservation_id,
          updatedAt: sql`now()`,
        })
        .where(
          and(
            eq(aiEmailDrafts.organizationId, call.ctx.orgId),
            eq(aiEmailDrafts.id, draftId),
            // Sent meanwhile (regenerate runs on a session: the lock above ended with its read).
            inArray(aiEmailDrafts.status, ['draft', 'approved', 'rejected']),
          ),
        )
        .returning(draftFields.selection);
      if (!row) throw new NotFound('Draft', draftId);
      return draftFields.present(row);
    },
  );
}
