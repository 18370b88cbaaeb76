-- The saved queries every organization starts with, in ONE place: signup calls
-- seed_default_saved_queries(org) in its transaction (one statement), and the organizations that
-- existed before saved queries get them below. Seeded rows carry a default_key, so seeding twice
-- inserts nothing twice (ON CONFLICT on the partial unique index). Owned by nobody (user_id null),
-- at workspace scope: every user sees them, admins change them.
CREATE OR REPLACE FUNCTION seed_default_saved_queries(org bigint) RETURNS void
LANGUAGE sql VOLATILE SET search_path = public AS $$
  INSERT INTO saved_queries (organization_id, user_id, name, description, scope, module, definition, default_key)
  SELECT org, NULL, d.name, d.description, 'workspace', d.definition->>'module', d.definition, d.default_key
  FROM (VALUES
    ('leads_by_status', 'Leads by status', 'Live leads per status',
      '{"module":"leads","filters":{},"metric":{"op":"count"},"group_by":"status","bucket":null}'::jsonb),
    ('leads_by_source_per_month', 'Leads by source per month', 'New leads per source, by month of creation',
      '{"module":"leads","filters":{},"metric":{"op":"count"},"group_by":"lead_source","bucket":{"field":"created_at","unit":"month"}}'::jsonb),
    ('open_pipeline_by_stage', 'Open pipeline by stage', 'Value of open deals per stage',
      '{"module":"deals","filters":{"outcome":"open"},"metric":{"op":"sum","field":"value"},"group_by":"stage","bucket":null}'::jsonb),
    ('deals_won_per_month', 'Deals won per month', 'Value of won deals, by month of closing',
      '{"module":"deals","filters":{"outcome":"won"},"metric":{"op":"sum","field":"value"},"group_by":null,"bucket":{"field":"closed_at","unit":"month"}}'::jsonb),
    ('average_score_by_owner', 'Average lead score by owner', 'Mean score of live leads per assigned user',
      '{"module":"leads","filters":{},"metric":{"op":"avg","field":"score"},"group_by":"assigned_to","bucket":null}'::jsonb)
  ) AS d(default_key, name, description, definition)
  ON CONFLICT (organization_id, default_key) WHERE default_key IS NOT NULL DO NOTHING;
$$;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION seed_default_saved_queries(bigint) TO lm_app;
--> statement-breakpoint
SELECT seed_default_saved_queries(o.id) FROM organizations o;
