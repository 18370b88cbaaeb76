-- lead_search_index_pattern (0060) in PL/pgSQL, with the same answer for every pattern. As a SQL
-- function with CTEs it could not be inlined, so each search planned its body again: 0.6–0.7 ms of
-- a wide search's database time on PostgreSQL 15, warm backend (issue 17). PL/pgSQL keeps its
-- one statement's plan for the life of the backend (a pooled server connection, PGlite's one
-- backend): 0.1 ms. The words and their shares are read in one statement, then weighed as
-- before: the rarest word of three characters or more (ties: the longer, then the first) is
-- the anchor and always stays; another word leaves when length × share > 150 × anchor share ×
-- (1 − share); when no word leaves, or none can anchor, the pattern comes back unchanged.
CREATE OR REPLACE FUNCTION "lead_search_index_pattern"(pattern text) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  words text[];
  shares real[];
  anchor integer;
  kept text := '';
  dropped boolean := false;
BEGIN
  SELECT array_agg(w.m[1] ORDER BY w.ord), array_agg(coalesce(s.share, 0.01) ORDER BY w.ord)
    INTO words, shares
    FROM regexp_matches(pattern, '[[:alnum:]]+', 'g') WITH ORDINALITY AS w(m, ord)
    LEFT JOIN lead_search_words s
      ON s.organization_id = nullif(current_setting('app.organization_id', true), '')::bigint AND s.word = w.m[1];
  FOR i IN 1 .. coalesce(array_length(words, 1), 0) LOOP
    IF length(words[i]) >= 3 AND (anchor IS NULL OR shares[i] < shares[anchor]
        OR (shares[i] = shares[anchor] AND length(words[i]) > length(words[anchor]))) THEN
      anchor := i;
    END IF;
  END LOOP;
  IF anchor IS NULL THEN
    RETURN pattern;
  END IF;
  FOR i IN 1 .. array_length(words, 1) LOOP
    IF i = anchor OR length(words[i]) * shares[i] <= 150 * shares[anchor] * (1 - shares[i]) THEN
      kept := kept || '%' || words[i];
    ELSE
      dropped := true;
    END IF;
  END LOOP;
  IF NOT dropped THEN
    RETURN pattern;
  END IF;
  RETURN kept || '%';
END
$$;
