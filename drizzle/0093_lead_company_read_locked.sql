-- An intent signal, meeting or deal inserted while its lead's company changed kept the old
-- company: its BEFORE INSERT trigger read the lead's committed row while the change was not yet
-- committed, and the change's statement trigger (pass_on_lead_company) could not see the new,
-- uncommitted row, so nothing ever corrected it. The triggers now read the lead FOR KEY SHARE: the
-- lock the row's foreign key check takes on that lead a moment later anyway, so no lock is added,
-- only taken before the read. A write that changes a lead's company or deletes it holds the lead
-- FOR UPDATE from its first statement (leads/update.ts lockLeads), which KEY SHARE waits for: the
-- read then returns the committed change (READ COMMITTED re-reads a row it waited for). An insert
-- that read first holds KEY SHARE, so the change waits for it, and its statement trigger, run
-- after, sees the new row and passes the company on to it.
CREATE OR REPLACE FUNCTION "take_lead_company"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT l.company_id INTO NEW.lead_company_id FROM leads l
  WHERE l.id = NEW.lead_id AND l.organization_id = NEW.organization_id AND l.deleted_at IS NULL
  FOR KEY SHARE;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "take_deal_lead_facts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT CASE WHEN l.deleted_at IS NULL THEN l.company_id END, l.created_at INTO NEW.lead_company_id, NEW.lead_created_at
  FROM leads l WHERE l.id = NEW.lead_id AND l.organization_id = NEW.organization_id
  FOR KEY SHARE;
  RETURN NEW;
END $$;
