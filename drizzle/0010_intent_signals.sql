CREATE TABLE "intent_alerts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "intent_alerts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"lead_id" bigint NOT NULL,
	"score" double precision NOT NULL,
	"reasons" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"acknowledged_at" timestamp with time zone,
	"acknowledged_by" bigint
);
--> statement-breakpoint
ALTER TABLE "intent_alerts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "intent_signals" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "intent_signals_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"lead_id" bigint NOT NULL,
	"signal_type" text NOT NULL,
	"signal_detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"source" text,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"dedupe_key" text
);
--> statement-breakpoint
ALTER TABLE "intent_signals" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "lead_intent_scores" (
	"organization_id" bigint NOT NULL,
	"lead_id" bigint NOT NULL,
	"score" double precision NOT NULL,
	"scored_at" timestamp with time zone NOT NULL,
	"hot_until" timestamp with time zone,
	"last_crossed_at" timestamp with time zone,
	CONSTRAINT "lead_intent_scores_organization_id_lead_id_pk" PRIMARY KEY("organization_id","lead_id")
);
--> statement-breakpoint
ALTER TABLE "lead_intent_scores" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "intent_alerts" ADD CONSTRAINT "intent_alerts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intent_alerts" ADD CONSTRAINT "intent_alerts_lead_id_leads_id_fk" FOREIGN KEY ("lead_id") REFERENCES "public"."leads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intent_alerts" ADD CONSTRAINT "intent_alerts_acknowledged_by_users_id_fk" FOREIGN KEY ("acknowledged_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intent_signals" ADD CONSTRAINT "intent_signals_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intent_signals" ADD CONSTRAINT "intent_signals_lead_id_leads_id_fk" FOREIGN KEY ("lead_id") REFERENCES "public"."leads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_intent_scores" ADD CONSTRAINT "lead_intent_scores_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_intent_scores" ADD CONSTRAINT "lead_intent_scores_lead_id_leads_id_fk" FOREIGN KEY ("lead_id") REFERENCES "public"."leads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "intent_alerts_organization_lead_idx" ON "intent_alerts" USING btree ("organization_id","lead_id","id");--> statement-breakpoint
CREATE INDEX "intent_alerts_organization_created_idx" ON "intent_alerts" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "intent_signals_organization_lead_idx" ON "intent_signals" USING btree ("organization_id","lead_id","occurred_at");--> statement-breakpoint
CREATE UNIQUE INDEX "intent_signals_dedupe_key" ON "intent_signals" USING btree ("organization_id","dedupe_key");--> statement-breakpoint
CREATE INDEX "intent_signals_open_token_idx" ON "intent_signals" USING btree ("organization_id",("signal_detail"->>'token_hash')) WHERE "intent_signals"."signal_type" = 'email_opened';--> statement-breakpoint
CREATE INDEX "lead_intent_scores_hot_idx" ON "lead_intent_scores" USING btree ("organization_id","hot_until");--> statement-breakpoint
CREATE POLICY "intent_alerts_tenant_isolation" ON "intent_alerts" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "intent_signals_tenant_isolation" ON "intent_signals" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
CREATE POLICY "lead_intent_scores_tenant_isolation" ON "lead_intent_scores" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);