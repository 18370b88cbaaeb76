-- Common words left out of a search's trigram index condition (issue 17). A LIKE on the trigram
-- index reads the posting list of every trigram of the pattern, and the trigrams of a word most
-- leads share (`example`, `com`, `gmail`) list most of the organization: searching a company
-- domain matching 2 % of 100 000 leads spent 5.8 of its 8.7 ms in the index on PostgreSQL 15,
-- 1.3 ms without the common word. The search keeps the whole term as a check on the candidates,
-- so which words are left out changes the cost, never the result.
--
-- lead_search_index_pattern(pattern): the LIKE pattern for the index, from the lower-cased
-- pattern of the whole term. Its words (runs of letters and digits, as pg_trgm splits them) are
-- weighed with their share in lead_search_words (1 % when the word is not there: rarer than
-- that). The rarest word of three characters or more is the anchor and always stays; another word
-- leaves when reading its trigrams costs more than the extra candidates its absence lets through:
-- length × share (the postings read) > 150 × anchor share × (1 − share) (the candidates it would
-- have excluded, each a heap row about 150 times a posting's cost). When no word leaves, or no
-- word is long enough to anchor the index, the pattern is returned unchanged. The kept words, in
-- order and joined by `%`, match every document the whole pattern matches.
CREATE FUNCTION "lead_search_index_pattern"(pattern text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  WITH words AS (
    SELECT w.m[1] AS word, w.ord, coalesce(s.share, 0.01) AS share
    FROM regexp_matches(pattern, '[[:alnum:]]+', 'g') WITH ORDINALITY AS w(m, ord)
    LEFT JOIN lead_search_words s
      ON s.organization_id = nullif(current_setting('app.organization_id', true), '')::bigint AND s.word = w.m[1]
  ), anchor AS (
    SELECT ord, share FROM words WHERE length(word) >= 3 ORDER BY share, length(word) DESC, ord LIMIT 1
  ), judged AS (
    SELECT w.word, w.ord, w.ord = a.ord OR length(w.word) * w.share <= 150 * a.share * (1 - w.share) AS kept
    FROM words w CROSS JOIN anchor a
  )
  SELECT CASE WHEN coalesce(bool_and(kept), true) THEN pattern
    ELSE '%' || string_agg(word, '%' ORDER BY ord) FILTER (WHERE kept) || '%' END
  FROM judged
$$;
--> statement-breakpoint
-- refresh_lead_search_words(min_leads, sample_size): rewrites lead_search_words for every
-- organization with at least min_leads live leads, from the documents of its sample_size newest
-- live leads: each word in at least 1 % of them, with its share. Smaller organizations get no
-- rows (their posting lists are short). The daily cron calls it with the defaults; run by the
-- tables' owner, across organizations. Returns the number of organizations measured.
CREATE FUNCTION "refresh_lead_search_words"(min_leads integer DEFAULT 10000, sample_size integer DEFAULT 20000) RETURNS integer
LANGUAGE sql VOLATILE AS $$
  DELETE FROM lead_search_words;
  WITH sizable AS (
    -- live_row_counts: the live-lead counter the lists' totals read (0007).
    SELECT organization_id AS id FROM live_row_counts WHERE relation = 'leads'
    GROUP BY organization_id HAVING sum(delta) >= min_leads
  ), sampled AS (
    SELECT s.id AS organization_id, d.lead_id, d.document
    FROM sizable s
    CROSS JOIN LATERAL (
      SELECT l.id FROM leads l WHERE l.organization_id = s.id AND l.deleted_at IS NULL ORDER BY l.id DESC LIMIT sample_size
    ) l
    JOIN lead_search_documents d ON d.lead_id = l.id
  ), sizes AS (
    SELECT organization_id, count(*) AS documents FROM sampled GROUP BY organization_id
  ), counted AS (
    SELECT x.organization_id, x.word, count(*) AS documents
    FROM sampled s
    CROSS JOIN LATERAL (SELECT DISTINCT s.organization_id, m[1] AS word FROM regexp_matches(s.document, '[[:alnum:]]+', 'g') m) x
    GROUP BY x.organization_id, x.word
  ), saved AS (
    INSERT INTO lead_search_words (organization_id, word, share)
    SELECT c.organization_id, c.word, c.documents::real / z.documents
    FROM counted c JOIN sizes z ON z.organization_id = c.organization_id
    WHERE c.documents >= 0.01 * z.documents
    RETURNING organization_id
  )
  SELECT count(DISTINCT organization_id)::integer FROM saved;
$$;
