CREATE TABLE "credit_ledger" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "credit_ledger_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"amount" integer NOT NULL,
	"feature" text,
	"idempotency_key" text,
	"reservation_id" bigint,
	"note" text,
	"created_by" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_ledger_kind_check" CHECK ("credit_ledger"."kind" in ('grant', 'reservation', 'settlement', 'refund')),
	CONSTRAINT "credit_ledger_amount_check" CHECK (("credit_ledger"."kind" = 'grant' and "credit_ledger"."amount" > 0)
        or ("credit_ledger"."kind" = 'reservation' and "credit_ledger"."amount" < 0 and "credit_ledger"."idempotency_key" is not null)
        or ("credit_ledger"."kind" = 'settlement' and "credit_ledger"."amount" = 0 and "credit_ledger"."reservation_id" is not null)
        or ("credit_ledger"."kind" = 'refund' and "credit_ledger"."amount" > 0 and "credit_ledger"."reservation_id" is not null))
);
--> statement-breakpoint
ALTER TABLE "credit_ledger" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_reservation_id_credit_ledger_id_fk" FOREIGN KEY ("reservation_id") REFERENCES "public"."credit_ledger"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credit_ledger_organization_idx" ON "credit_ledger" USING btree ("organization_id","kind","created_at","amount");--> statement-breakpoint
CREATE UNIQUE INDEX "credit_ledger_reservation_key" ON "credit_ledger" USING btree ("organization_id","idempotency_key") WHERE "credit_ledger"."kind" = 'reservation';--> statement-breakpoint
CREATE UNIQUE INDEX "credit_ledger_closing_key" ON "credit_ledger" USING btree ("reservation_id") WHERE "credit_ledger"."kind" in ('settlement', 'refund');--> statement-breakpoint
CREATE POLICY "credit_ledger_tenant_isolation" ON "credit_ledger" AS PERMISSIVE FOR ALL TO "lm_app" USING ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint) WITH CHECK ("organization_id" = nullif(current_setting('app.organization_id', true), '')::bigint);--> statement-breakpoint
-- Existing organizations get the starting grant new ones get at signup (STARTING_GRANT in src/modules/credits/prices.ts).
INSERT INTO "credit_ledger" ("organization_id", "kind", "amount", "note") SELECT "id", 'grant', 1000, 'starting grant' FROM "organizations";
