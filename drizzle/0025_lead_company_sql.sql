-- intent_signals.lead_company_id and meetings.lead_company_id: the company of the row's lead while
-- that lead is live (null when it has no lead, no company, or the lead is deleted), so an account's
-- signals and meetings are index ranges by company rather than one probe per lead of the account
-- (target-accounts/health.ts, analytics/top-accounts.ts). Kept by the writes, on every path:
--   a signal or meeting takes its lead's company when inserted or moved to another lead (row trigger,
--   one index probe; a hard-deleted lead's meetings are moved to no lead by the foreign key's SET NULL);
--   a lead whose company or liveness changes passes it on to its signals and meetings (statement trigger).
CREATE FUNCTION "take_lead_company"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.lead_company_id := (SELECT l.company_id FROM leads l
    WHERE l.id = NEW.lead_id AND l.organization_id = NEW.organization_id AND l.deleted_at IS NULL);
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE FUNCTION "pass_on_lead_company"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs bigint[];
  lead_ids bigint[];
  company_ids bigint[];
BEGIN
  SELECT array_agg(n.organization_id), array_agg(n.id), array_agg(CASE WHEN n.deleted_at IS NULL THEN n.company_id END)
    INTO orgs, lead_ids, company_ids
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE n.company_id IS DISTINCT FROM o.company_id OR (n.deleted_at IS NULL) <> (o.deleted_at IS NULL);
  IF lead_ids IS NOT NULL THEN
    UPDATE intent_signals s SET lead_company_id = c.company_id
    FROM unnest(orgs, lead_ids, company_ids) AS c(organization_id, lead_id, company_id)
    WHERE s.organization_id = c.organization_id AND s.lead_id = c.lead_id AND s.lead_company_id IS DISTINCT FROM c.company_id;
    UPDATE meetings m SET lead_company_id = c.company_id
    FROM unnest(orgs, lead_ids, company_ids) AS c(organization_id, lead_id, company_id)
    WHERE m.organization_id = c.organization_id AND m.lead_id = c.lead_id AND m.lead_company_id IS DISTINCT FROM c.company_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "intent_signals_lead_company" BEFORE INSERT OR UPDATE OF "lead_id" ON "intent_signals" FOR EACH ROW EXECUTE FUNCTION take_lead_company();--> statement-breakpoint
CREATE TRIGGER "meetings_lead_company" BEFORE INSERT OR UPDATE OF "lead_id" ON "meetings" FOR EACH ROW EXECUTE FUNCTION take_lead_company();--> statement-breakpoint
CREATE TRIGGER "leads_pass_on_company" AFTER UPDATE ON "leads" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pass_on_lead_company();--> statement-breakpoint
UPDATE "intent_signals" SET "lead_company_id" = l.company_id FROM leads l
  WHERE l.id = "intent_signals"."lead_id" AND l.deleted_at IS NULL AND l.company_id IS NOT NULL;--> statement-breakpoint
UPDATE "meetings" SET "lead_company_id" = l.company_id FROM leads l
  WHERE l.id = "meetings"."lead_id" AND l.deleted_at IS NULL AND l.company_id IS NOT NULL;
