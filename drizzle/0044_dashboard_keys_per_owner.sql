DROP INDEX "dashboards_organization_key";--> statement-breakpoint
CREATE UNIQUE INDEX "dashboards_shared_key" ON "dashboards" USING btree ("organization_id","dashboard_key") WHERE "dashboards"."scope" <> 'personal';--> statement-breakpoint
CREATE UNIQUE INDEX "dashboards_personal_key" ON "dashboards" USING btree ("organization_id","user_id","dashboard_key") WHERE "dashboards"."scope" = 'personal';