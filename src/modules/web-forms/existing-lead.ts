/**
 * A public web-form submission whose email (or profile URL) an existing lead already holds. The
 * visitor is anonymous: anyone who knows a customer's email can send it, so the submission never
 * rewrites what a person entered. In ONE statement it:
 * - fills the lead's EMPTY name, phone and job title fields with the submitted values (a field
 *   that holds a value keeps it);
 * - never touches the owner, the company, the tags or the dedupe keys (email, profile URL);
 * - records a feed entry `form_submitted` on the lead whose `changes` carry every submitted value
 *   (`to`) beside what the lead held (`from`), so a rep can apply the rest by hand;
 * - records a `form_submitted` intent signal (source `web_form`, the form's id in its detail).
 * Then the lead is rescored (a second statement), which may raise a hot-lead alert.
 * API-key ingestion with `merge: 1` is the key holder's deliberate choice and keeps its own rules.
 */
import { sql } from 'drizzle-orm';
import { intentSignals, leads } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { feedEntriesFrom } from '../feed';
import { intentScoresLocked, rescoreLeads } from '../intent';
import type { FormFieldName } from './schemas';

/** Stored fields a public submission may fill when they are empty. */
const FILLABLE = ['first_name', 'last_name', 'phone_number', 'job_title'] as const;

/** Submitted fields whose stored value the feed entry shows beside them (every form field). */
const SHOWN: Record<FormFieldName, string> = {
  first_name: 'l.first_name',
  last_name: 'l.last_name',
  email: 'l.email',
  phone_number: 'l.phone_number',
  company: 'l.company',
  job_title: 'l.job_title',
  profile_url: 'l.profile_url',
};

const emptyIn = (column: string) => sql.raw(`coalesce(${column}, '') = ''`);

export async function recordSubmissionOnLead(
  ctx: TenantContext,
  leadId: number,
  submitted: Readonly<Record<string, unknown>>,
  formId: number,
): Promise<void> {
  const values = Object.fromEntries(
    Object.entries(submitted).filter(
      (entry): entry is [FormFieldName, string] => Object.hasOwn(SHOWN, entry[0]) && typeof entry[1] === 'string',
    ),
  );
  const fillsOf = FILLABLE.map((field) => ({
    field,
    when: sql`${emptyIn(`b.${field}`)} and coalesce(${values[field] ?? null}::text, '') <> ''`,
  }));
  const fills = sql.join(
    fillsOf.map(
      ({ field, when }) =>
        sql`${sql.identifier(field)} = case when ${when} then ${values[field] ?? null}::text else l.${sql.identifier(field)} end`,
    ),
    sql`, `,
  );
  const anyFill = sql.join(
    fillsOf.map(({ when }) => sql`(${when})`),
    sql` or `,
  );
  const shown = sql.join(
    Object.keys(values).map(
      (field) =>
        sql`${field}::text, jsonb_build_object('from', ${sql.raw(SHOWN[field as FormFieldName].replace('l.', 'b.'))}, 'to', ${values[field]}::text)`,
    ),
    sql`, `,
  );
  const detail = JSON.stringify({ form_id: formId, submitted: values });
  await ctx.db.execute(sql`
    with before as (
      select l.id, l.first_name, l.last_name, l.email, l.phone_number, l.company, l.job_title, l.profile_url
      from ${leads} l where l.organization_id = ${ctx.orgId} and l.id = ${leadId} and l.deleted_at is null
      for update
    ), filled as (
      update ${leads} l set ${fills}, last_activity_at = now(),
        updated_at = case when ${anyFill} then now() else l.updated_at end
      from before b where l.id = b.id and l.organization_id = ${ctx.orgId}
      returning l.id
    ), feed as (
      ${feedEntriesFrom(ctx, {
        from: sql`before b`,
        modelType: 'lead',
        modelId: sql`b.id`,
        action: 'form_submitted',
        changes: Object.keys(values).length > 0 ? sql`jsonb_build_object(${shown})` : undefined,
      })}
    ), signal as (
      insert into ${intentSignals} (organization_id, lead_id, signal_type, signal_detail, source, occurred_at)
      select ${ctx.orgId}, b.id, 'form_submitted', ${detail}::jsonb, 'web_form', now() from before b
      where ${intentScoresLocked(ctx.orgId, sql`select ${leadId}::bigint as lead_id`)}
    )
    select id from filled`);
  // The request's effects send an intent.hot webhook after the writes commit (sooner than the lease sweep).
  await rescoreLeads(ctx.db, ctx.orgId, [leadId], ctx.effects);
}
