-- The organization's deleted companies (GET /api/company/deleted, src/modules/companies/trash.ts): the
-- list reads them through this index, at a cost that follows the deleted companies, as
-- leads_organization_deleted_idx and contacts_organization_deleted_idx (0095) do for theirs.
CREATE INDEX "companies_organization_deleted_idx" ON "companies" USING btree ("organization_id","id") WHERE "companies"."deleted_at" is not null;