CREATE TABLE "meeting_tool_deliveries" (
	"organization_id" bigint NOT NULL,
	"endpoint_id" bigint NOT NULL,
	"delivery_id" text NOT NULL,
	"meeting_id" bigint,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "meeting_tool_deliveries_organization_id_endpoint_id_delivery_id_pk" PRIMARY KEY("organization_id","endpoint_id","delivery_id")
);
--> statement-breakpoint
ALTER TABLE "meeting_tool_deliveries" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "meeting_tool_endpoints" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "meeting_tool_endpoints_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"tool" text NOT NULL,
	"token" text NOT NULL,
	"secret" text NOT NULL,
	"secret_key_id" text NOT NULL,
	"created_by" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "meeting_tool_endpoints_tool_check" CHECK ("meeting_tool_endpoints"."tool" in ('tool_a', 'tool_b', 'tool_c'))
);
--> statement-breakpoint
ALTER TABLE "meeting_tool_endpoints" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "meeting_transcripts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "meeting_transcripts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"meeting_id" bigint NOT NULL,
	"source" text NOT NULL,
	"format" text NOT NULL,
	"storage_key" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"segment_count" integer NOT NULL,
	"speakers" text[] DEFAULT '{}'::text[] NOT NULL,
	"duration_ms" bigint,
	"created_by" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "meeting_transcripts_format_check" CHECK ("meeting_transcripts"."format" in ('text', 'vtt', 'srt'))
);
--> statement-breakpoint
ALTER TABLE "meeting_transcripts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "calendar_busy_blocks" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "calendar_busy_blocks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"connection_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"provider_event_id" text,
	CONSTRAINT "calendar_busy_blocks_end_after_start" CHECK ("calendar_busy_blocks"."ends_at" > "calendar_busy_blocks"."starts_at")
);
--> statement-breakpoint
ALTER TABLE "calendar_busy_blocks" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "calendar_event_writes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "calendar_event_writes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"meeting_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"request_id" text NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"connection_id" bigint,
	"provider" text,
	"provider_event_id" text,
	"created_by" bigint,
	"status" text DEFAULT 'queued' NOT NULL,
	"error" text,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_expires_at" timestamp with time zone,
	"lease_resends" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "calendar_event_writes_state_check" CHECK ("calendar_event_writes"."state" in ('pending', 'created', 'skipped', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "calendar_sync_jobs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "calendar_sync_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"connection_id" bigint NOT NULL,
	"created_by" bigint,
	"status" text DEFAULT 'queued' NOT NULL,
	"error" text,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_expires_at" timestamp with time zone,
	"lease_resends" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calendar_sync_jobs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "local_calendar_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "local_calendar_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"connection_id" bigint NOT NULL,
	"request_id" text NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"location" text,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"attendees" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"conference_url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "local_calendar_events" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "meeting_tool_deliveries" ADD CONSTRAINT "meeting_tool_deliveries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_tool_deliveries" ADD CONSTRAINT "meeting_tool_deliveries_endpoint_id_meeting_tool_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."meeting_tool_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_tool_endpoints" ADD CONSTRAINT "meeting_tool_endpoints_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_tool_endpoints" ADD CONSTRAINT "meeting_tool_endpoints_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_transcripts" ADD CONSTRAINT "meeting_transcripts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_transcripts" ADD CONSTRAINT "meeting_transcripts_meeting_id_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."meetings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_transcripts" ADD CONSTRAINT "meeting_transcripts_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_busy_blocks" ADD CONSTRAINT "calendar_busy_blocks_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_busy_blocks" ADD CONSTRAINT "calendar_busy_blocks_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_busy_blocks" ADD CONSTRAINT "calendar_busy_blocks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ADD CONSTRAINT "calendar_event_writes_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ADD CONSTRAINT "calendar_event_writes_meeting_id_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."meetings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ADD CONSTRAINT "calendar_event_writes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ADD CONSTRAINT "calendar_event_writes_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_event_writes" ADD CONSTRAINT "calendar_event_writes_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_sync_jobs" ADD CONSTRAINT "calendar_sync_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_sync_jobs" ADD CONSTRAINT "calendar_sync_jobs_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_sync_jobs" ADD CONSTRAINT "calendar_sync_jobs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "local_calendar_events" ADD CONSTRAINT "local_calendar_events_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "local_calendar_events" ADD CONSTRAINT "local_calendar_events_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "meeting_tool_endpoints_token_idx" ON "meeting_tool_endpoints" USING btree ("token");--> statement-breakpoint
CREATE INDEX "meeting_tool_endpoints_organization_idx" ON "meeting_tool_endpoints" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "meeting_transcripts_meeting_idx" ON "meeting_transcripts" USING btree ("organization_id","meeting_id");--> statement-breakpoint
CREATE INDEX "calendar_busy_blocks_user_start_idx" ON "calendar_busy_blocks" USING btree ("organization_id","user_id","starts_at");--> statement-breakpoint
CREATE INDEX "calendar_busy_blocks_connection_idx" ON "calendar_busy_blocks" USING btree ("organization_id","connection_id","starts_at");--> statement-breakpoint
CREATE INDEX "calendar_event_writes_open_lease_idx" ON "calendar_event_writes" USING btree ("lease_expires_at") WHERE "calendar_event_writes"."status" in ('queued', 'running');--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_event_writes_meeting_idx" ON "calendar_event_writes" USING btree ("organization_id","meeting_id");--> statement-breakpoint
CREATE INDEX "calendar_sync_jobs_connection_idx" ON "calendar_sync_jobs" USING btree ("organization_id","connection_id","id");--> statement-breakpoint
CREATE INDEX "calendar_sync_jobs_open_lease_idx" ON "calendar_sync_jobs" USING btree ("lease_expires_at") WHERE "calendar_sync_jobs"."status" in ('queued', 'running');--> statement-breakpoint
CREATE UNIQUE INDEX "local_calendar_events_request_idx" ON "local_calendar_events" USING btree ("organization_id","connection_id","request_id");--> statement-breakpoint
CREATE INDEX "local_calendar_events_start_idx" ON "local_calendar_events" USING btree ("organization_id","connection_id","starts_at");--> statement-breakpoint
CREATE POLICY "meeting_tool_deliveries_tenant_isolation" ON "meeting_tool_deliveries" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "meeting_tool_endpoints_tenant_isolation" ON "meeting_tool_endpoints" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "meeting_transcripts_tenant_isolation" ON "meeting_transcripts" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "calendar_busy_blocks_tenant_isolation" ON "calendar_busy_blocks" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "calendar_event_writes_tenant_isolation" ON "calendar_event_writes" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "calendar_sync_jobs_tenant_isolation" ON "calendar_sync_jobs" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "local_calendar_events_tenant_isolation" ON "local_calendar_events" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);