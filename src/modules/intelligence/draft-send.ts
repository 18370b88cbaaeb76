/**
 * Sending an approved draft (spec: `POST /api/ai-email/draft/:draft_id/send`): through the mail
 * module's one sending path (suppression list, tracking pixel and links, List-Unsubscribe with
 * One-Click, the outbox and the mail-send job), to the lead's address, from the caller's mail
 * account. Nothing is sent without an approval: any other state is a 409 naming it. The draft
 * becomes `queued` with its message; the message's outcome is the draft's `sent` or `failed`.
 */
import { eq, sql } from 'drizzle-orm';
import { aiEmailDrafts } from '../../db/schema';
import { tenantWhere } from '../../db/tenant';
import { NotFound, ValidationFailed } from '../../core/errors';
import { type ComposeContext, sendMessage } from '../mail';
import { draftFields } from './draft-fields';
import { draftStateConflict, lockDraft } from './drafts';
import { leadFacts } from './lead-facts';

export async function sendDraft(compose: ComposeContext, draftId: number, configId: number) {
  const { ctx } = compose;
  const draft = await lockDraft(ctx, draftId);
  if (draft.status !== 'approved') throw draftStateConflict(draft, 'send', ['approved']);
  const lead = (await leadFacts(ctx, [draft.lead_id])).get(draft.lead_id);
  if (!lead) throw new NotFound('Lead', draft.lead_id);
  if (!lead.email) throw ValidationFailed.field('draft_id', `lead ${lead.id} has no email address to send to`);
  const message = await sendMessage(compose, {
    config_id: configId,
    to: [lead.email],
    subject: draft.subject,
    body: draft.body,
    body_format: 'text',
  });
  const [row] = await ctx.db
    .update(aiEmailDrafts)
    .set({ status: 'queued', mailMessageId: message.id, updatedAt: sql`now()` })
    .where(tenantWhere(ctx, aiEmailDrafts, eq(aiEmailDrafts.id, draftId)))
    .returning(draftFields.selection);
  return { draft: draftFields.present(row), message };
}
