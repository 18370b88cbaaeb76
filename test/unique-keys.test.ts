/**
 * A write that meets a unique index no route expected fails with 23505, which the error handler
 * (core/http.ts) can only answer as an anonymous 409 `duplicate`: a status or a body most routes'
 * contracts do not list (every call in these tests checks the answer against the OpenAPI
 * document, test/helpers/contract.ts). So every unique index (and every primary key other than
 * a plain `id`) is named below with how a write that meets it is answered; a new one fails this
 * test until its author has decided.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { signupOrganization } from './helpers/api';
import { inOrganization } from './helpers/leads';

const ON_CONFLICT = 'every insert is ON CONFLICT (do nothing or do update)';
const JOB_ONLY = 'written by jobs and crons only (no route), which retry or skip';
const RANDOM = 'a server-made random value (no input reaches it)';
const CHECKED_KEY =
  'check under a per-key advisory lock, insert ON CONFLICT DO NOTHING then the declared 409 naming the holder; an update that moves a row onto the key writes in a savepoint (writeCheckedKey) and answers the same 409';

const UNIQUE_KEYS: Record<string, string> = {
  ai_email_drafts_job_lead_key: JOB_ONLY,
  api_keys_key_hash_key: RANDOM,
  calendar_event_writes_meeting_idx: `${ON_CONFLICT}; one per new meeting`,
  calls_provider_call_key: `${ON_CONFLICT} (observed calls); set on a call by the voice job`,
  chat_subscriptions_channel_idx: `${ON_CONFLICT}: 409 duplicate_subscription; updates do not change the channel`,
  companies_organization_external_key: JOB_ONLY,
  connections_live_account_key: `${ON_CONFLICT} (connected apps and the voice connection: a connect of a connected account reconnects it)`,
  connections_live_kind_key:
    'a connect of enrichment or voice takes the kind’s advisory lock, disconnects the other live row, then inserts: never met (two connects at once: the later wins)',
  companies_organization_name_key: `${CHECKED_KEY} (duplicate_company); leads link or create by name ON CONFLICT`,
  contacts_organization_email_key: `${CHECKED_KEY} (duplicate_contact)`,
  credit_ledger_closing_key: ON_CONFLICT,
  credit_ledger_reservation_key: 'inserted under the organization’s credits lock, only when no reservation has the key',
  dashboards_personal_key: `${CHECKED_KEY} (dashboard_id_taken)`,
  dashboards_shared_key: `${CHECKED_KEY} (dashboard_id_taken)`,
  deal_forecasts_deal_day_key: ON_CONFLICT,
  forecast_snapshot_runs_pkey: JOB_ONLY,
  idempotency_keys_organization_id_scope_key_pk: `${ON_CONFLICT}, under the key’s advisory lock`,
  intent_signals_dedupe_key: `${ON_CONFLICT}; signals without a dedupe key are never refused`,
  lead_enrichment_items_job_item_key: JOB_ONLY,
  lead_intent_scores_organization_id_lead_id_pk: ON_CONFLICT,
  lead_score_models_organization_version_key: JOB_ONLY,
  lead_score_training_runs_pkey: JOB_ONLY,
  lead_search_documents_pkey: 'maintained by the database (trigger), never by a statement of ours',
  lead_search_words_organization_id_word_pk: `${JOB_ONLY}: rewritten whole`,
  lead_tags_lead_id_tag_id_pk: ON_CONFLICT,
  link_domain_verifications_organization_id_domain_pk: `${ON_CONFLICT} (replacing the list keeps a listed domain’s row)`,
  leads_import_row_key: JOB_ONLY,
  leads_organization_external_key: JOB_ONLY,
  leads_organization_live_email_key: `${CHECKED_KEY} (duplicate_lead)`,
  leads_organization_live_profile_url_key: `${CHECKED_KEY} (duplicate_lead)`,
  local_calendar_events_request_idx: ON_CONFLICT,
  login_successes_email_key_ip_pk: ON_CONFLICT,
  lookups_organization_active_tag_name_key:
    'checked under the type’s lock; a reactivation writes in a savepoint: 409 duplicate_lookup; ingestion ON CONFLICT',
  lookups_organization_value_key: 'checked under the type’s lock, the violation mapped to 409 duplicate_value',
  mail_messages_provider_id_key: `${JOB_ONLY} (routes insert messages without a provider id)`,
  mail_suppressions_organization_id_address_pk: ON_CONFLICT,
  meeting_tool_deliveries_organization_id_endpoint_id_delivery_id: ON_CONFLICT,
  meeting_tool_endpoints_token_hash_idx: RANDOM,
  meeting_transcripts_meeting_idx: ON_CONFLICT,
  phone_number_users_organization_id_phone_number_id_user_id_pk: ON_CONFLICT,
  phone_numbers_live_key: `${ON_CONFLICT}: 409 number_owned`,
  profile_leads_job_item_key: JOB_ONLY,
  revoked_tokens_pkey: ON_CONFLICT,
  roles_organization_name_key: 'the violation mapped to 409 role_exists; roles are never renamed',
  saved_queries_organization_default_key: 'seeded by the database for a new organization (never from input)',
  stages_pipeline_lost_key: 'the pipeline’s stages locked and parked (flags cleared) before they are rewritten',
  stages_pipeline_position_key:
    'the pipeline’s stages locked and parked at negative positions before they are rewritten',
  stages_pipeline_won_key: 'the pipeline’s stages locked and parked (flags cleared) before they are rewritten',
  target_account_contacts_account_contact_key: ON_CONFLICT,
  target_accounts_organization_company_key: `${ON_CONFLICT}: 409 duplicate_target_account; the company is read-only after create`,
  users_booking_slug_key:
    'signup and user add skip a taken slug ON CONFLICT; a chosen slug’s violation is mapped to 409 booking_slug_taken',
  users_email_key: 'the violation mapped to 409 email_taken (signup, user add, user update)',
  voice_ledger_call_kind_key: `${ON_CONFLICT}, or a new call’s hold under the wallet lock`,
  voice_ledger_number_kind_key: `${ON_CONFLICT}, or a new number’s rental under the wallet lock`,
  voice_ledger_renewal_key: JOB_ONLY,
  web_forms_form_link_key: RANDOM,
};

describe('unique keys', () => {
  it('every unique index and composite primary key is accounted for: how a write that meets it is answered', async () => {
    const org = await signupOrganization('Unique keys');
    const rows = await inOrganization(org.orgId, async (tx) => {
      const result = await tx.execute<{ name: string }>(sql`
        select c.relname as name
        from pg_index i
        join pg_class c on c.oid = i.indexrelid
        join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
        where i.indisunique
          and not (i.indisprimary and i.indnatts = 1 and exists (
            select 1 from pg_attribute a where a.attrelid = i.indrelid and a.attnum = i.indkey[0] and a.attname = 'id'))`);
      return result.rows;
    });
    expect(rows.map((row) => row.name).sort()).toEqual(Object.keys(UNIQUE_KEYS).sort());
  });
});
