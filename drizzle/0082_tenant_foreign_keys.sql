-- Every reference between two tenant tables now carries the organization:
-- (organization_id, column) -> parent (organization_id, id), so the database itself refuses a row
-- that points at another organization's record, whatever code wrote it. Each parent gets a unique
-- index on (organization_id, id) for the keys to point at (an existing plain one becomes unique).
-- A key that cleared its column on delete clears that column alone (SET NULL (column),
-- PostgreSQL 15): clearing organization_id too would break its NOT NULL. drizzle-kit cannot write
-- the column list, so its snapshot records a plain "set null" (see tenantReference in
-- src/db/schema/tenancy.ts). Adding the keys checks every existing row: a database holding a
-- cross-organization reference stops here, naming the key, instead of keeping it.
ALTER TABLE "users" DROP CONSTRAINT "users_role_id_roles_id_fk";--> statement-breakpoint
ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "custom_views" DROP CONSTRAINT "custom_views_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "lookups" DROP CONSTRAINT "lookups_parent_id_lookups_id_fk";--> statement-breakpoint
ALTER TABLE "companies" DROP CONSTRAINT "companies_assigned_to_users_id_fk";--> statement-breakpoint
ALTER TABLE "companies" DROP CONSTRAINT "companies_logo_file_id_stored_files_id_fk";--> statement-breakpoint
ALTER TABLE "companies" DROP CONSTRAINT "companies_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "company_enrichment_jobs" DROP CONSTRAINT "company_enrichment_jobs_company_id_companies_id_fk";--> statement-breakpoint
ALTER TABLE "company_enrichment_jobs" DROP CONSTRAINT "company_enrichment_jobs_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "contacts" DROP CONSTRAINT "contacts_company_id_companies_id_fk";--> statement-breakpoint
ALTER TABLE "contacts" DROP CONSTRAINT "contacts_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "lead_follow_ups" DROP CONSTRAINT "lead_follow_ups_lead_id_leads_id_fk";--> statement-breakpoint
ALTER TABLE "lead_follow_ups" DROP CONSTRAINT "lead_follow_ups_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "lead_notes" DROP CONSTRAINT "lead_notes_lead_id_leads_id_fk";--> statement-breakpoint
ALTER TABLE "lead_notes" DROP CONSTRAINT "lead_notes_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "lead_search_documents" DROP CONSTRAINT "lead_search_documents_lead_id_leads_id_fk";--> statement-breakpoint
ALTER TABLE "lead_tags" DROP CONSTRAINT "lead_tags_lead_id_leads_id_fk";--> statement-breakpoint
ALTER TABLE "lead_tags" DROP CONSTRAINT "lead_tags_tag_id_lookups_id_fk";--> statement-breakpoint
ALTER TABLE "leads" DROP CONSTRAINT "leads_company_id_companies_id_fk";--> statement-breakpoint
ALTER TABLE "leads" DROP CONSTRAINT "leads_assigned_to_users_id_fk";--> statement-breakpoint
ALTER TABLE "leads" DROP CONSTRAINT "leads_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "attachments" DROP CONSTRAINT "attachments_file_id_stored_files_id_fk";--> statement-breakpoint
ALTER TABLE "attachments" DROP CONSTRAINT "attachments_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "stored_files" DROP CONSTRAINT "stored_files_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "feed_entries" DROP CONSTRAINT "feed_entries_actor_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "export_jobs" DROP CONSTRAINT "export_jobs_file_id_stored_files_id_fk";--> statement-breakpoint
ALTER TABLE "export_jobs" DROP CONSTRAINT "export_jobs_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "import_job_rows" DROP CONSTRAINT "import_job_rows_import_job_id_import_jobs_id_fk";--> statement-breakpoint
ALTER TABLE "import_jobs" DROP CONSTRAINT "import_jobs_file_id_stored_files_id_fk";--> statement-breakpoint
ALTER TABLE "import_jobs" DROP CONSTRAINT "import_jobs_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "intent_alerts" DROP CONSTRAINT "intent_alerts_lead_id_leads_id_fk";--> statement-breakpoint
ALTER TABLE "intent_alerts" DROP CONSTRAINT "intent_alerts_acknowledged_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "intent_signals" DROP CONSTRAINT "intent_signals_lead_id_leads_id_fk";--> statement-breakpoint
ALTER TABLE "lead_intent_scores" DROP CONSTRAINT "lead_intent_scores_lead_id_leads_id_fk";--> statement-breakpoint
ALTER TABLE "deal_forecasts" DROP CONSTRAINT "deal_forecasts_deal_id_deals_id_fk";--> statement-breakpoint
ALTER TABLE "deal_stage_history" DROP CONSTRAINT "deal_stage_history_deal_id_deals_id_fk";--> statement-breakpoint
ALTER TABLE "deal_stage_history" DROP CONSTRAINT "deal_stage_history_changed_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "deals" DROP CONSTRAINT "deals_lead_id_leads_id_fk";--> statement-breakpoint
ALTER TABLE "deals" DROP CONSTRAINT "deals_pipeline_id_pipelines_id_fk";--> statement-breakpoint
ALTER TABLE "deals" DROP CONSTRAINT "deals_stage_id_stages_id_fk";--> statement-breakpoint
ALTER TABLE "deals" DROP CONSTRAINT "deals_owner_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "pipelines" DROP CONSTRAINT "pipelines_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "stages" DROP CONSTRAINT "stages_pipeline_id_pipelines_id_fk";--> statement-breakpoint
ALTER TABLE "web_forms" DROP CONSTRAINT "web_forms_assigned_to_users_id_fk";--> statement-breakpoint
ALTER TABLE "web_forms" DROP CONSTRAINT "web_forms_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "meetings" DROP CONSTRAINT "meetings_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "meetings" DROP CONSTRAINT "meetings_lead_id_leads_id_fk";--> statement-breakpoint
ALTER TABLE "meetings" DROP CONSTRAINT "meetings_contact_id_contacts_id_fk";--> statement-breakpoint
ALTER TABLE "meetings" DROP CONSTRAINT "meetings_company_id_companies_id_fk";--> statement-breakpoint
ALTER TABLE "meetings" DROP CONSTRAINT "meetings_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "outreach_plans" DROP CONSTRAINT "outreach_plans_target_account_id_target_accounts_id_fk";--> statement-breakpoint
ALTER TABLE "outreach_plans" DROP CONSTRAINT "outreach_plans_contact_id_contacts_id_fk";--> statement-breakpoint
ALTER TABLE "outreach_plans" DROP CONSTRAINT "outreach_plans_assigned_to_users_id_fk";--> statement-breakpoint
ALTER TABLE "outreach_plans" DROP CONSTRAINT "outreach_plans_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "target_account_contacts" DROP CONSTRAINT "target_account_contacts_target_account_id_target_accounts_id_fk";--> statement-breakpoint
ALTER TABLE "target_account_contacts" DROP CONSTRAINT "target_account_contacts_contact_id_contacts_id_fk";--> statement-breakpoint
ALTER TABLE "target_account_contacts" DROP CONSTRAINT "target_account_contacts_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "target_accounts" DROP CONSTRAINT "target_accounts_company_id_companies_id_fk";--> statement-breakpoint
ALTER TABLE "target_accounts" DROP CONSTRAINT "target_accounts_owner_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "target_accounts" DROP CONSTRAINT "target_accounts_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "dashboards" DROP CONSTRAINT "dashboards_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "saved_queries" DROP CONSTRAINT "saved_queries_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "connections" DROP CONSTRAINT "connections_owner_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "mail_messages" DROP CONSTRAINT "mail_messages_connection_id_connections_id_fk";--> statement-breakpoint
ALTER TABLE "mail_messages" DROP CONSTRAINT "mail_messages_lead_id_leads_id_fk";--> statement-breakpoint
ALTER TABLE "mail_messages" DROP CONSTRAINT "mail_messages_contact_id_contacts_id_fk";--> statement-breakpoint
ALTER TABLE "mail_messages" DROP CONSTRAINT "mail_messages_target_account_id_target_accounts_id_fk";--> statement-breakpoint
ALTER TABLE "mail_messages" DROP CONSTRAINT "mail_messages_send_job_id_mail_send_jobs_id_fk";--> statement-breakpoint
ALTER TABLE "mail_messages" DROP CONSTRAINT "mail_messages_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "mail_send_jobs" DROP CONSTRAINT "mail_send_jobs_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "credit_ledger" DROP CONSTRAINT "credit_ledger_reservation_id_credit_ledger_id_fk";--> statement-breakpoint
ALTER TABLE "credit_ledger" DROP CONSTRAINT "credit_ledger_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "meeting_tool_deliveries" DROP CONSTRAINT "meeting_tool_deliveries_endpoint_id_meeting_tool_endpoints_id_fk";--> statement-breakpoint
ALTER TABLE "meeting_tool_endpoints" DROP CONSTRAINT "meeting_tool_endpoints_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "meeting_transcripts" DROP CONSTRAINT "meeting_transcripts_meeting_id_meetings_id_fk";--> statement-breakpoint
ALTER TABLE "meeting_transcripts" DROP CONSTRAINT "meeting_transcripts_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "calendar_busy_blocks" DROP CONSTRAINT "calendar_busy_blocks_connection_id_connections_id_fk";--> statement-breakpoint
ALTER TABLE "calendar_busy_blocks" DROP CONSTRAINT "calendar_busy_blocks_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "calendar_event_writes" DROP CONSTRAINT "calendar_event_writes_meeting_id_meetings_id_fk";--> statement-breakpoint
ALTER TABLE "calendar_event_writes" DROP CONSTRAINT "calendar_event_writes_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "calendar_event_writes" DROP CONSTRAINT "calendar_event_writes_connection_id_connections_id_fk";--> statement-breakpoint
ALTER TABLE "calendar_event_writes" DROP CONSTRAINT "calendar_event_writes_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "calendar_sync_jobs" DROP CONSTRAINT "calendar_sync_jobs_connection_id_connections_id_fk";--> statement-breakpoint
ALTER TABLE "calendar_sync_jobs" DROP CONSTRAINT "calendar_sync_jobs_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "local_calendar_events" DROP CONSTRAINT "local_calendar_events_connection_id_connections_id_fk";--> statement-breakpoint
ALTER TABLE "calls" DROP CONSTRAINT "calls_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "calls" DROP CONSTRAINT "calls_lead_id_leads_id_fk";--> statement-breakpoint
ALTER TABLE "calls" DROP CONSTRAINT "calls_contact_id_contacts_id_fk";--> statement-breakpoint
ALTER TABLE "calls" DROP CONSTRAINT "calls_company_id_companies_id_fk";--> statement-breakpoint
ALTER TABLE "calls" DROP CONSTRAINT "calls_connection_id_connections_id_fk";--> statement-breakpoint
ALTER TABLE "calls" DROP CONSTRAINT "calls_recording_file_id_stored_files_id_fk";--> statement-breakpoint
ALTER TABLE "phone_number_users" DROP CONSTRAINT "phone_number_users_phone_number_id_phone_numbers_id_fk";--> statement-breakpoint
ALTER TABLE "phone_number_users" DROP CONSTRAINT "phone_number_users_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "phone_numbers" DROP CONSTRAINT "phone_numbers_connection_id_connections_id_fk";--> statement-breakpoint
ALTER TABLE "phone_numbers" DROP CONSTRAINT "phone_numbers_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "voice_jobs" DROP CONSTRAINT "voice_jobs_phone_number_id_phone_numbers_id_fk";--> statement-breakpoint
ALTER TABLE "voice_jobs" DROP CONSTRAINT "voice_jobs_call_id_calls_id_fk";--> statement-breakpoint
ALTER TABLE "voice_jobs" DROP CONSTRAINT "voice_jobs_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "voice_ledger" DROP CONSTRAINT "voice_ledger_call_id_calls_id_fk";--> statement-breakpoint
ALTER TABLE "voice_ledger" DROP CONSTRAINT "voice_ledger_phone_number_id_phone_numbers_id_fk";--> statement-breakpoint
ALTER TABLE "voice_ledger" DROP CONSTRAINT "voice_ledger_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "crm_import_jobs" DROP CONSTRAINT "crm_import_jobs_connection_id_connections_id_fk";--> statement-breakpoint
ALTER TABLE "crm_import_jobs" DROP CONSTRAINT "crm_import_jobs_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "crm_import_records" DROP CONSTRAINT "crm_import_records_job_id_crm_import_jobs_id_fk";--> statement-breakpoint
ALTER TABLE "ai_email_drafts" DROP CONSTRAINT "ai_email_drafts_lead_id_leads_id_fk";--> statement-breakpoint
ALTER TABLE "ai_email_drafts" DROP CONSTRAINT "ai_email_drafts_job_id_ai_email_jobs_id_fk";--> statement-breakpoint
ALTER TABLE "ai_email_drafts" DROP CONSTRAINT "ai_email_drafts_reservation_id_credit_ledger_id_fk";--> statement-breakpoint
ALTER TABLE "ai_email_drafts" DROP CONSTRAINT "ai_email_drafts_approved_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "ai_email_drafts" DROP CONSTRAINT "ai_email_drafts_rejected_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "ai_email_drafts" DROP CONSTRAINT "ai_email_drafts_mail_message_id_mail_messages_id_fk";--> statement-breakpoint
ALTER TABLE "ai_email_drafts" DROP CONSTRAINT "ai_email_drafts_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "ai_email_jobs" DROP CONSTRAINT "ai_email_jobs_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_endpoint_id_webhook_endpoints_id_fk";--> statement-breakpoint
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_chat_subscription_id_chat_subscriptions_id_fk";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "chat_subscriptions" DROP CONSTRAINT "chat_subscriptions_connection_id_connections_id_fk";--> statement-breakpoint
ALTER TABLE "chat_subscriptions" DROP CONSTRAINT "chat_subscriptions_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "lead_scoring_jobs" DROP CONSTRAINT "lead_scoring_jobs_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "lead_enrichment_items" DROP CONSTRAINT "lead_enrichment_items_job_id_lead_enrichment_jobs_id_fk";--> statement-breakpoint
ALTER TABLE "lead_enrichment_items" DROP CONSTRAINT "lead_enrichment_items_profile_lead_id_profile_leads_id_fk";--> statement-breakpoint
ALTER TABLE "lead_enrichment_jobs" DROP CONSTRAINT "lead_enrichment_jobs_created_by_users_id_fk";--> statement-breakpoint
ALTER TABLE "profile_leads" DROP CONSTRAINT "profile_leads_lead_id_leads_id_fk";--> statement-breakpoint
ALTER TABLE "profile_leads" DROP CONSTRAINT "profile_leads_job_id_lead_enrichment_jobs_id_fk";--> statement-breakpoint
ALTER TABLE "profile_leads" DROP CONSTRAINT "profile_leads_created_by_users_id_fk";--> statement-breakpoint
DROP INDEX "users_organization_id_idx";--> statement-breakpoint
DROP INDEX "stored_files_organization_id_idx";--> statement-breakpoint
DROP INDEX "import_jobs_organization_id_idx";--> statement-breakpoint
DROP INDEX "target_accounts_organization_id_idx";--> statement-breakpoint
DROP INDEX "mail_send_jobs_organization_idx";--> statement-breakpoint
DROP INDEX "meeting_tool_endpoints_organization_idx";--> statement-breakpoint
DROP INDEX "phone_numbers_organization_idx";--> statement-breakpoint
DROP INDEX "crm_import_jobs_organization_id_idx";--> statement-breakpoint
DROP INDEX "ai_email_jobs_organization_idx";--> statement-breakpoint
DROP INDEX "webhook_endpoints_organization_id_idx";--> statement-breakpoint
DROP INDEX "lead_enrichment_jobs_organization_id_idx";--> statement-breakpoint
DROP INDEX "profile_leads_organization_id_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "roles_organization_id_id_key" ON "roles" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "lookups_organization_id_id_key" ON "lookups" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "companies_organization_id_id_key" ON "companies" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_organization_id_id_key" ON "contacts" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "leads_organization_id_id_key" ON "leads" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "deals_organization_id_id_key" ON "deals" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "pipelines_organization_id_id_key" ON "pipelines" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "stages_organization_id_id_key" ON "stages" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "meetings_organization_id_id_key" ON "meetings" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "connections_organization_id_id_key" ON "connections" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "mail_messages_organization_id_id_key" ON "mail_messages" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "credit_ledger_organization_id_id_key" ON "credit_ledger" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "calls_organization_id_id_key" ON "calls" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_organization_id_id_key" ON "webhook_deliveries" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_subscriptions_organization_id_id_key" ON "chat_subscriptions" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_organization_id_idx" ON "users" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "stored_files_organization_id_idx" ON "stored_files" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "import_jobs_organization_id_idx" ON "import_jobs" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "target_accounts_organization_id_idx" ON "target_accounts" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "mail_send_jobs_organization_idx" ON "mail_send_jobs" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "meeting_tool_endpoints_organization_idx" ON "meeting_tool_endpoints" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "phone_numbers_organization_idx" ON "phone_numbers" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "crm_import_jobs_organization_id_idx" ON "crm_import_jobs" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "ai_email_jobs_organization_idx" ON "ai_email_jobs" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_endpoints_organization_id_idx" ON "webhook_endpoints" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "lead_enrichment_jobs_organization_id_idx" ON "lead_enrichment_jobs" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "profile_leads_organization_id_idx" ON "profile_leads" USING btree ("organization_id","id");--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_role_id_tenant_fk" FOREIGN KEY ("organization_id","role_id") REFERENCES "public"."roles"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_views" ADD CONSTRAINT "custom_views_user_id_tenant_fk" FOREIGN KEY ("organization_id","user_id") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lookups" ADD CONSTRAINT "lookups_parent_id_tenant_fk" FOREIGN KEY ("organization_id","parent_id") REFERENCES "public"."lookups"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "companies" ADD CONSTRAINT "companies_assigned_to_tenant_fk" FOREIGN KEY ("organization_id","assigned_to") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "companies" ADD CONSTRAINT "companies_logo_file_id_tenant_fk" FOREIGN KEY ("organization_id","logo_file_id") REFERENCES "public"."stored_files"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "companies" ADD CONSTRAINT "companies_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "company_enrichment_jobs" ADD CONSTRAINT "company_enrichment_jobs_company_id_tenant_fk" FOREIGN KEY ("organization_id","company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "company_enrichment_jobs" ADD CONSTRAINT "company_enrichment_jobs_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_company_id_tenant_fk" FOREIGN KEY ("organization_id","company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_follow_ups" ADD CONSTRAINT "lead_follow_ups_lead_id_tenant_fk" FOREIGN KEY ("organization_id","lead_id") REFERENCES "public"."leads"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_follow_ups" ADD CONSTRAINT "lead_follow_ups_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_notes" ADD CONSTRAINT "lead_notes_lead_id_tenant_fk" FOREIGN KEY ("organization_id","lead_id") REFERENCES "public"."leads"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_notes" ADD CONSTRAINT "lead_notes_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_search_documents" ADD CONSTRAINT "lead_search_documents_lead_id_tenant_fk" FOREIGN KEY ("organization_id","lead_id") REFERENCES "public"."leads"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_tags" ADD CONSTRAINT "lead_tags_lead_id_tenant_fk" FOREIGN KEY ("organization_id","lead_id") REFERENCES "public"."leads"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_tags" ADD CONSTRAINT "lead_tags_tag_id_tenant_fk" FOREIGN KEY ("organization_id","tag_id") REFERENCES "public"."lookups"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_company_id_tenant_fk" FOREIGN KEY ("organization_id","company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_assigned_to_tenant_fk" FOREIGN KEY ("organization_id","assigned_to") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_file_id_tenant_fk" FOREIGN KEY ("organization_id","file_id") REFERENCES "public"."stored_files"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stored_files" ADD CONSTRAINT "stored_files_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feed_entries" ADD CONSTRAINT "feed_entries_actor_user_id_tenant_fk" FOREIGN KEY ("organization_id","actor_user_id") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_user_id_tenant_fk" FOREIGN KEY ("organization_id","user_id") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD CONSTRAINT "export_jobs_file_id_tenant_fk" FOREIGN KEY ("organization_id","file_id") REFERENCES "public"."stored_files"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD CONSTRAINT "export_jobs_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "import_job_rows" ADD CONSTRAINT "import_job_rows_import_job_id_tenant_fk" FOREIGN KEY ("organization_id","import_job_id") REFERENCES "public"."import_jobs"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD CONSTRAINT "import_jobs_file_id_tenant_fk" FOREIGN KEY ("organization_id","file_id") REFERENCES "public"."stored_files"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD CONSTRAINT "import_jobs_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intent_alerts" ADD CONSTRAINT "intent_alerts_lead_id_tenant_fk" FOREIGN KEY ("organization_id","lead_id") REFERENCES "public"."leads"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intent_alerts" ADD CONSTRAINT "intent_alerts_acknowledged_by_tenant_fk" FOREIGN KEY ("organization_id","acknowledged_by") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intent_signals" ADD CONSTRAINT "intent_signals_lead_id_tenant_fk" FOREIGN KEY ("organization_id","lead_id") REFERENCES "public"."leads"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_intent_scores" ADD CONSTRAINT "lead_intent_scores_lead_id_tenant_fk" FOREIGN KEY ("organization_id","lead_id") REFERENCES "public"."leads"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deal_forecasts" ADD CONSTRAINT "deal_forecasts_deal_id_tenant_fk" FOREIGN KEY ("organization_id","deal_id") REFERENCES "public"."deals"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deal_stage_history" ADD CONSTRAINT "deal_stage_history_deal_id_tenant_fk" FOREIGN KEY ("organization_id","deal_id") REFERENCES "public"."deals"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deal_stage_history" ADD CONSTRAINT "deal_stage_history_changed_by_tenant_fk" FOREIGN KEY ("organization_id","changed_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("changed_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_lead_id_tenant_fk" FOREIGN KEY ("organization_id","lead_id") REFERENCES "public"."leads"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_pipeline_id_tenant_fk" FOREIGN KEY ("organization_id","pipeline_id") REFERENCES "public"."pipelines"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_stage_id_tenant_fk" FOREIGN KEY ("organization_id","stage_id") REFERENCES "public"."stages"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_owner_id_tenant_fk" FOREIGN KEY ("organization_id","owner_id") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("owner_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pipelines" ADD CONSTRAINT "pipelines_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stages" ADD CONSTRAINT "stages_pipeline_id_tenant_fk" FOREIGN KEY ("organization_id","pipeline_id") REFERENCES "public"."pipelines"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "web_forms" ADD CONSTRAINT "web_forms_assigned_to_tenant_fk" FOREIGN KEY ("organization_id","assigned_to") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("assigned_to") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "web_forms" ADD CONSTRAINT "web_forms_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meetings" ADD CONSTRAINT "meetings_user_id_tenant_fk" FOREIGN KEY ("organization_id","user_id") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meetings" ADD CONSTRAINT "meetings_lead_id_tenant_fk" FOREIGN KEY ("organization_id","lead_id") REFERENCES "public"."leads"("organization_id","id") ON DELETE SET NULL ("lead_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meetings" ADD CONSTRAINT "meetings_contact_id_tenant_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE SET NULL ("contact_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meetings" ADD CONSTRAINT "meetings_company_id_tenant_fk" FOREIGN KEY ("organization_id","company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE SET NULL ("company_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meetings" ADD CONSTRAINT "meetings_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outreach_plans" ADD CONSTRAINT "outreach_plans_target_account_id_tenant_fk" FOREIGN KEY ("organization_id","target_account_id") REFERENCES "public"."target_accounts"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outreach_plans" ADD CONSTRAINT "outreach_plans_contact_id_tenant_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outreach_plans" ADD CONSTRAINT "outreach_plans_assigned_to_tenant_fk" FOREIGN KEY ("organization_id","assigned_to") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("assigned_to") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outreach_plans" ADD CONSTRAINT "outreach_plans_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "target_account_contacts" ADD CONSTRAINT "target_account_contacts_target_account_id_tenant_fk" FOREIGN KEY ("organization_id","target_account_id") REFERENCES "public"."target_accounts"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "target_account_contacts" ADD CONSTRAINT "target_account_contacts_contact_id_tenant_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "target_account_contacts" ADD CONSTRAINT "target_account_contacts_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "target_accounts" ADD CONSTRAINT "target_accounts_company_id_tenant_fk" FOREIGN KEY ("organization_id","company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "target_accounts" ADD CONSTRAINT "target_accounts_owner_id_tenant_fk" FOREIGN KEY ("organization_id","owner_id") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("owner_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "target_accounts" ADD CONSTRAINT "target_accounts_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboards" ADD CONSTRAINT "dashboards_user_id_tenant_fk" FOREIGN KEY ("organization_id","user_id") REFERENCES "public"."users"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_queries" ADD CONSTRAINT "saved_queries_user_id_tenant_fk" FOREIGN KEY ("organization_id","user_id") REFERENCES "public"."users"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_owner_id_tenant_fk" FOREIGN KEY ("organization_id","owner_id") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("owner_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD CONSTRAINT "mail_messages_connection_id_tenant_fk" FOREIGN KEY ("organization_id","connection_id") REFERENCES "public"."connections"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD CONSTRAINT "mail_messages_lead_id_tenant_fk" FOREIGN KEY ("organization_id","lead_id") REFERENCES "public"."leads"("organization_id","id") ON DELETE SET NULL ("lead_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD CONSTRAINT "mail_messages_contact_id_tenant_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE SET NULL ("contact_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD CONSTRAINT "mail_messages_target_account_id_tenant_fk" FOREIGN KEY ("organization_id","target_account_id") REFERENCES "public"."target_accounts"("organization_id","id") ON DELETE SET NULL ("target_account_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD CONSTRAINT "mail_messages_send_job_id_tenant_fk" FOREIGN KEY ("organization_id","send_job_id") REFERENCES "public"."mail_send_jobs"("organization_id","id") ON DELETE SET NULL ("send_job_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD CONSTRAINT "mail_messages_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_send_jobs" ADD CONSTRAINT "mail_send_jobs_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_reservation_id_tenant_fk" FOREIGN KEY ("organization_id","reservation_id") REFERENCES "public"."credit_ledger"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_tool_deliveries" ADD CONSTRAINT "meeting_tool_deliveries_endpoint_id_tenant_fk" FOREIGN KEY ("organization_id","endpoint_id") REFERENCES "public"."meeting_tool_endpoints"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_tool_endpoints" ADD CONSTRAINT "meeting_tool_endpoints_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_transcripts" ADD CONSTRAINT "meeting_transcripts_meeting_id_tenant_fk" FOREIGN KEY ("organization_id","meeting_id") REFERENCES "public"."meetings"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_transcripts" ADD CONSTRAINT "meeting_transcripts_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_busy_blocks" ADD CONSTRAINT "calendar_busy_blocks_connection_id_tenant_fk" FOREIGN KEY ("organization_id","connection_id") REFERENCES "public"."connections"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_busy_blocks" ADD CONSTRAINT "calendar_busy_blocks_user_id_tenant_fk" FOREIGN KEY ("organization_id","user_id") REFERENCES "public"."users"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ADD CONSTRAINT "calendar_event_writes_meeting_id_tenant_fk" FOREIGN KEY ("organization_id","meeting_id") REFERENCES "public"."meetings"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ADD CONSTRAINT "calendar_event_writes_user_id_tenant_fk" FOREIGN KEY ("organization_id","user_id") REFERENCES "public"."users"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ADD CONSTRAINT "calendar_event_writes_connection_id_tenant_fk" FOREIGN KEY ("organization_id","connection_id") REFERENCES "public"."connections"("organization_id","id") ON DELETE SET NULL ("connection_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ADD CONSTRAINT "calendar_event_writes_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_sync_jobs" ADD CONSTRAINT "calendar_sync_jobs_connection_id_tenant_fk" FOREIGN KEY ("organization_id","connection_id") REFERENCES "public"."connections"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_sync_jobs" ADD CONSTRAINT "calendar_sync_jobs_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "local_calendar_events" ADD CONSTRAINT "local_calendar_events_connection_id_tenant_fk" FOREIGN KEY ("organization_id","connection_id") REFERENCES "public"."connections"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_user_id_tenant_fk" FOREIGN KEY ("organization_id","user_id") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("user_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_lead_id_tenant_fk" FOREIGN KEY ("organization_id","lead_id") REFERENCES "public"."leads"("organization_id","id") ON DELETE SET NULL ("lead_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_contact_id_tenant_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE SET NULL ("contact_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_company_id_tenant_fk" FOREIGN KEY ("organization_id","company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE SET NULL ("company_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_connection_id_tenant_fk" FOREIGN KEY ("organization_id","connection_id") REFERENCES "public"."connections"("organization_id","id") ON DELETE SET NULL ("connection_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_recording_file_id_tenant_fk" FOREIGN KEY ("organization_id","recording_file_id") REFERENCES "public"."stored_files"("organization_id","id") ON DELETE SET NULL ("recording_file_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_number_users" ADD CONSTRAINT "phone_number_users_phone_number_id_tenant_fk" FOREIGN KEY ("organization_id","phone_number_id") REFERENCES "public"."phone_numbers"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_number_users" ADD CONSTRAINT "phone_number_users_user_id_tenant_fk" FOREIGN KEY ("organization_id","user_id") REFERENCES "public"."users"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_connection_id_tenant_fk" FOREIGN KEY ("organization_id","connection_id") REFERENCES "public"."connections"("organization_id","id") ON DELETE SET NULL ("connection_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_jobs" ADD CONSTRAINT "voice_jobs_phone_number_id_tenant_fk" FOREIGN KEY ("organization_id","phone_number_id") REFERENCES "public"."phone_numbers"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_jobs" ADD CONSTRAINT "voice_jobs_call_id_tenant_fk" FOREIGN KEY ("organization_id","call_id") REFERENCES "public"."calls"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_jobs" ADD CONSTRAINT "voice_jobs_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_ledger" ADD CONSTRAINT "voice_ledger_call_id_tenant_fk" FOREIGN KEY ("organization_id","call_id") REFERENCES "public"."calls"("organization_id","id") ON DELETE SET NULL ("call_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_ledger" ADD CONSTRAINT "voice_ledger_phone_number_id_tenant_fk" FOREIGN KEY ("organization_id","phone_number_id") REFERENCES "public"."phone_numbers"("organization_id","id") ON DELETE SET NULL ("phone_number_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_ledger" ADD CONSTRAINT "voice_ledger_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_import_jobs" ADD CONSTRAINT "crm_import_jobs_connection_id_tenant_fk" FOREIGN KEY ("organization_id","connection_id") REFERENCES "public"."connections"("organization_id","id") ON DELETE SET NULL ("connection_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_import_jobs" ADD CONSTRAINT "crm_import_jobs_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_import_records" ADD CONSTRAINT "crm_import_records_job_id_tenant_fk" FOREIGN KEY ("organization_id","job_id") REFERENCES "public"."crm_import_jobs"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_lead_id_tenant_fk" FOREIGN KEY ("organization_id","lead_id") REFERENCES "public"."leads"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_job_id_tenant_fk" FOREIGN KEY ("organization_id","job_id") REFERENCES "public"."ai_email_jobs"("organization_id","id") ON DELETE SET NULL ("job_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_reservation_id_tenant_fk" FOREIGN KEY ("organization_id","reservation_id") REFERENCES "public"."credit_ledger"("organization_id","id") ON DELETE SET NULL ("reservation_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_approved_by_tenant_fk" FOREIGN KEY ("organization_id","approved_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("approved_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_rejected_by_tenant_fk" FOREIGN KEY ("organization_id","rejected_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("rejected_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_mail_message_id_tenant_fk" FOREIGN KEY ("organization_id","mail_message_id") REFERENCES "public"."mail_messages"("organization_id","id") ON DELETE SET NULL ("mail_message_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_drafts" ADD CONSTRAINT "ai_email_drafts_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_email_jobs" ADD CONSTRAINT "ai_email_jobs_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_endpoint_id_tenant_fk" FOREIGN KEY ("organization_id","endpoint_id") REFERENCES "public"."webhook_endpoints"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_tenant_fk" FOREIGN KEY ("organization_id","delivery_id") REFERENCES "public"."webhook_deliveries"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_tenant_fk" FOREIGN KEY ("organization_id","endpoint_id") REFERENCES "public"."webhook_endpoints"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_chat_subscription_id_tenant_fk" FOREIGN KEY ("organization_id","chat_subscription_id") REFERENCES "public"."chat_subscriptions"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_subscriptions" ADD CONSTRAINT "chat_subscriptions_connection_id_tenant_fk" FOREIGN KEY ("organization_id","connection_id") REFERENCES "public"."connections"("organization_id","id") ON DELETE SET NULL ("connection_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_subscriptions" ADD CONSTRAINT "chat_subscriptions_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_scoring_jobs" ADD CONSTRAINT "lead_scoring_jobs_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_enrichment_items" ADD CONSTRAINT "lead_enrichment_items_job_id_tenant_fk" FOREIGN KEY ("organization_id","job_id") REFERENCES "public"."lead_enrichment_jobs"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_enrichment_items" ADD CONSTRAINT "lead_enrichment_items_profile_lead_id_tenant_fk" FOREIGN KEY ("organization_id","profile_lead_id") REFERENCES "public"."profile_leads"("organization_id","id") ON DELETE SET NULL ("profile_lead_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_enrichment_jobs" ADD CONSTRAINT "lead_enrichment_jobs_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profile_leads" ADD CONSTRAINT "profile_leads_lead_id_tenant_fk" FOREIGN KEY ("organization_id","lead_id") REFERENCES "public"."leads"("organization_id","id") ON DELETE SET NULL ("lead_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profile_leads" ADD CONSTRAINT "profile_leads_job_id_tenant_fk" FOREIGN KEY ("organization_id","job_id") REFERENCES "public"."lead_enrichment_jobs"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profile_leads" ADD CONSTRAINT "profile_leads_created_by_tenant_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."users"("organization_id","id") ON DELETE SET NULL ("created_by") ON UPDATE no action;
