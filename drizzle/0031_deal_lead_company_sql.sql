-- deals.lead_company_id: the company of the deal's lead while that lead is live, as 0025 keeps it
-- for intent signals and meetings, so a company's open deals are an index range and top accounts
-- groups open deals by company without reading the leads. A deal takes it when inserted or moved
-- to another lead (row trigger); a lead whose company or liveness changes passes it on (the leads
-- statement trigger of 0025, now writing deals as well).
CREATE TRIGGER "deals_lead_company" BEFORE INSERT OR UPDATE OF "lead_id" ON "deals" FOR EACH ROW EXECUTE FUNCTION take_lead_company();--> statement-breakpoint
CREATE OR REPLACE FUNCTION "pass_on_lead_company"() RETURNS trigger LANGUAGE plpgsql AS $$
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
    UPDATE deals d SET lead_company_id = c.company_id
    FROM unnest(orgs, lead_ids, company_ids) AS c(organization_id, lead_id, company_id)
    WHERE d.organization_id = c.organization_id AND d.lead_id = c.lead_id AND d.lead_company_id IS DISTINCT FROM c.company_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
UPDATE "deals" SET "lead_company_id" = l.company_id FROM leads l
  WHERE l.id = "deals"."lead_id" AND l.deleted_at IS NULL AND l.company_id IS NOT NULL;
