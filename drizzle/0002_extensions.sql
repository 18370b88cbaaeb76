-- Trigram search (lead search_value) and btree_gin (so one GIN index leads with organization_id).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS btree_gin;
