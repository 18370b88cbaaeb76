-- leads_organization_id_idx (organization_id, id) is a prefix of leads_organization_id_company_idx
-- (organization_id, id, company_id), which serves every scan it served (the same order; a cursor
-- page of the organization's leads by id) at 8 more bytes an entry. One index fewer for every lead
-- insert, ingestion and imports included, to keep up to date.
DROP INDEX "leads_organization_id_idx";