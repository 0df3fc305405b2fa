-- Up Migration
--
-- A finding's `remediation` and `source` are its check's texts (libs/checks registry) in nearly every row: about 950
-- of the 2,000 bytes a finding takes, the same few hundred bytes repeated in each of a 500-cluster scan's 20,177
-- findings. They are stored once, in `finding_texts` (one row per distinct check, remediation and source), and a
-- finding holds its row's id (`texts_id`) with NULL remediation and source; a finding whose texts differ from its
-- check's keeps them in its own row (texts_id NULL). Readers take `COALESCE(f.remediation, t.remediation)` (libs/store
-- finding.repository.ts), so every answer is the same text as before. At 500 clusters the findings table goes from
-- 40.7 to 21.4 MiB and its COPY from about 1.0 to 0.8 CPU s of PostgreSQL.
-- The texts of a stored finding never change: a release that rewords a check adds a row and leaves the old one to
-- the findings stored with it. Rows are few (checks x wordings) and are not deleted.
-- Stored findings are converted: every wording shared by two findings or more gets a row, and its findings point at
-- it (an UPDATE of those rows; the space of the old versions is reused after the next VACUUM).
-- Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE finding_texts (
  id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  check_id    text NOT NULL,
  remediation text NOT NULL,
  source      text NOT NULL
);
-- One row per wording (digests: a check's texts may exceed a btree entry's 2,700 bytes).
CREATE UNIQUE INDEX finding_texts_wording_idx ON finding_texts (check_id, md5(remediation), md5(source));

ALTER TABLE findings
  ADD COLUMN texts_id integer,
  ALTER COLUMN remediation DROP NOT NULL,
  ALTER COLUMN source DROP NOT NULL;

INSERT INTO finding_texts (check_id, remediation, source)
SELECT check_id, remediation, source FROM findings GROUP BY check_id, remediation, source HAVING count(*) > 1
 ORDER BY check_id, remediation, source;

UPDATE findings f SET texts_id = t.id, remediation = NULL, source = NULL
  FROM finding_texts t
 WHERE t.check_id = f.check_id AND t.remediation = f.remediation AND t.source = f.source;

-- Every finding has its texts: inline, or by reference.
ALTER TABLE findings ADD CONSTRAINT findings_texts_check CHECK (texts_id IS NOT NULL OR (remediation IS NOT NULL AND source IS NOT NULL));

-- Down Migration
ALTER TABLE findings DROP CONSTRAINT findings_texts_check;
UPDATE findings f SET remediation = t.remediation, source = t.source, texts_id = NULL
  FROM finding_texts t
 WHERE t.id = f.texts_id;
ALTER TABLE findings
  DROP COLUMN texts_id,
  ALTER COLUMN remediation SET NOT NULL,
  ALTER COLUMN source SET NOT NULL;
DROP TABLE finding_texts;
