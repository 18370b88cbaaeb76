-- leads.open_deals / won_deals are recounted from the deals by the statement that changes a lead's
-- deals (count_lead_deals, 0023, 0063). The recount read the deals as of its statement's start, so
-- two transactions changing two deals of one lead at once each counted without the other's change,
-- and the second, after waiting for the first's lead row, wrote its stale count (or nothing, when
-- it equalled the first's): a lead whose deal was won kept won_deals 0 and left the dashboard's
-- converted leads. The trigger now locks the leads first, in id order, and recounts in the next
-- statement, whose snapshot (READ COMMITTED, a new one per statement of the function) holds every
-- change committed while it waited.
CREATE OR REPLACE FUNCTION "count_lead_deals"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  lead_ids bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT lead_id) INTO lead_ids FROM new_rows WHERE outcome IN ('open', 'won');
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT lead_id) INTO lead_ids FROM old_rows WHERE outcome IN ('open', 'won');
  ELSE
    EXECUTE $sql$
      SELECT array_agg(DISTINCT lead_id) FROM (
        SELECT n.lead_id FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.outcome IS DISTINCT FROM o.outcome OR n.lead_id IS DISTINCT FROM o.lead_id
        UNION
        SELECT o.lead_id FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.outcome IS DISTINCT FROM o.outcome OR n.lead_id IS DISTINCT FROM o.lead_id
      ) AS touched
    $sql$ INTO lead_ids;
  END IF;
  IF lead_ids IS NOT NULL THEN
    -- Wait for any other writer of these leads' counts; the recount below then sees its deals.
    PERFORM 1 FROM (SELECT l.id FROM leads l WHERE l.id = ANY (lead_ids) ORDER BY l.id FOR NO KEY UPDATE) AS locked;
    UPDATE leads l SET open_deals = c.open_deals, won_deals = c.won_deals
    FROM (
      SELECT l2.id, d.open_deals, d.won_deals FROM leads l2
      CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE x.outcome = 'open')::integer AS open_deals,
          count(*) FILTER (WHERE x.outcome = 'won')::integer AS won_deals
        FROM deals x WHERE x.organization_id = l2.organization_id AND x.lead_id = l2.id) AS d
      WHERE l2.id = ANY (lead_ids)
    ) AS c
    WHERE l.id = c.id AND (l.open_deals <> c.open_deals OR l.won_deals <> c.won_deals);
  END IF;
  RETURN NULL;
END $$;
