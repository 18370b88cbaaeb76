-- Live-row counters for the contact, company, deal, meeting and call lists (issue 17), as the lead
-- and feed lists have had since 0007: an unfiltered page sums the organization's few counter rows
-- instead of counting up to 10 000 of its rows, and past that bound it answers an exact total in
-- the page's one statement, where it answered the planner's estimate from a second one. The same
-- statement-level triggers as 0007 keep them through every write path: count_live_rows_soft for
-- the tables with a soft delete (a row is live while deleted_at is null), count_live_rows for the
-- others.
CREATE TRIGGER "contacts_live_rows_insert" AFTER INSERT ON "contacts" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows_soft();--> statement-breakpoint
CREATE TRIGGER "contacts_live_rows_update" AFTER UPDATE ON "contacts" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows_soft();--> statement-breakpoint
CREATE TRIGGER "contacts_live_rows_delete" AFTER DELETE ON "contacts" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows_soft();--> statement-breakpoint
CREATE TRIGGER "contacts_live_rows_truncate" AFTER TRUNCATE ON "contacts" FOR EACH STATEMENT EXECUTE FUNCTION forget_live_rows();--> statement-breakpoint
CREATE TRIGGER "companies_live_rows_insert" AFTER INSERT ON "companies" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows_soft();--> statement-breakpoint
CREATE TRIGGER "companies_live_rows_update" AFTER UPDATE ON "companies" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows_soft();--> statement-breakpoint
CREATE TRIGGER "companies_live_rows_delete" AFTER DELETE ON "companies" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows_soft();--> statement-breakpoint
CREATE TRIGGER "companies_live_rows_truncate" AFTER TRUNCATE ON "companies" FOR EACH STATEMENT EXECUTE FUNCTION forget_live_rows();--> statement-breakpoint
CREATE TRIGGER "deals_live_rows_insert" AFTER INSERT ON "deals" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows();--> statement-breakpoint
CREATE TRIGGER "deals_live_rows_delete" AFTER DELETE ON "deals" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows();--> statement-breakpoint
CREATE TRIGGER "deals_live_rows_truncate" AFTER TRUNCATE ON "deals" FOR EACH STATEMENT EXECUTE FUNCTION forget_live_rows();--> statement-breakpoint
CREATE TRIGGER "meetings_live_rows_insert" AFTER INSERT ON "meetings" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows();--> statement-breakpoint
CREATE TRIGGER "meetings_live_rows_delete" AFTER DELETE ON "meetings" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows();--> statement-breakpoint
CREATE TRIGGER "meetings_live_rows_truncate" AFTER TRUNCATE ON "meetings" FOR EACH STATEMENT EXECUTE FUNCTION forget_live_rows();--> statement-breakpoint
CREATE TRIGGER "calls_live_rows_insert" AFTER INSERT ON "calls" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows();--> statement-breakpoint
CREATE TRIGGER "calls_live_rows_delete" AFTER DELETE ON "calls" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_live_rows();--> statement-breakpoint
CREATE TRIGGER "calls_live_rows_truncate" AFTER TRUNCATE ON "calls" FOR EACH STATEMENT EXECUTE FUNCTION forget_live_rows();--> statement-breakpoint
INSERT INTO "live_row_counts" ("organization_id", "relation", "delta")
  SELECT organization_id, 'contacts', count(*) FROM contacts WHERE deleted_at IS NULL GROUP BY organization_id
  UNION ALL SELECT organization_id, 'companies', count(*) FROM companies WHERE deleted_at IS NULL GROUP BY organization_id
  UNION ALL SELECT organization_id, 'deals', count(*) FROM deals GROUP BY organization_id
  UNION ALL SELECT organization_id, 'meetings', count(*) FROM meetings GROUP BY organization_id
  UNION ALL SELECT organization_id, 'calls', count(*) FROM calls GROUP BY organization_id;
