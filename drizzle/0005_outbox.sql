CREATE TABLE "job_outbox" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "job_outbox_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"message" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "job_outbox" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "job_outbox" ADD CONSTRAINT "job_outbox_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "job_outbox_created_at_idx" ON "job_outbox" USING btree ("created_at","id");--> statement-breakpoint
CREATE POLICY "job_outbox_tenant_isolation" ON "job_outbox" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);