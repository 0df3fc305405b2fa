-- Up Migration
--
-- Read generations (issue 11 bench:api): counters the API's read caches key on, so a cached answer is
-- never served after the data under it changed, on any replica. Each counter is bumped by a trigger in
-- the transaction that changes the data, so a reader sees the new value exactly when it sees the new
-- data (READ COMMITTED: the generation is read by a statement before the cached read's statement).
--   findings: the findings / first-last sightings / "latest succeeded scan" of every scan. Findings and
--     finding_fingerprints are written only inside the scan completion transaction (ScanRepository.complete),
--     which always ends by updating the scan row to `succeeded`; the trigger sits on that update (and on
--     status changes and deletions of scans), so the counter row is locked only for the last moment of a
--     completion and concurrent completions do not serialise on it.
--   waivers: every insert / update / delete of waivers (creating, changing, revoking).
-- Expiry is not a change of data: caches hold waivers, and states are evaluated at read time.
-- Append-only: never edit once released (STYLE.md D.14).

CREATE TABLE read_generations (
  name       text PRIMARY KEY CHECK (name IN ('findings', 'waivers')),
  generation bigint NOT NULL DEFAULT 0
);
INSERT INTO read_generations (name) VALUES ('findings'), ('waivers');

CREATE FUNCTION bump_read_generation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE read_generations SET generation = generation + 1 WHERE name = TG_ARGV[0];
  RETURN NULL;
END;
$$;

CREATE TRIGGER scans_bump_findings_generation
  AFTER UPDATE ON scans FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR NEW.status = 'succeeded' OR OLD.started_at IS DISTINCT FROM NEW.started_at)
  EXECUTE FUNCTION bump_read_generation('findings');
CREATE TRIGGER scans_bump_findings_generation_on_insert
  AFTER INSERT ON scans FOR EACH ROW WHEN (NEW.status = 'succeeded')
  EXECUTE FUNCTION bump_read_generation('findings');
CREATE TRIGGER scans_bump_findings_generation_on_delete
  AFTER DELETE ON scans FOR EACH ROW
  EXECUTE FUNCTION bump_read_generation('findings');
CREATE TRIGGER waivers_bump_waivers_generation
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON waivers FOR EACH STATEMENT
  EXECUTE FUNCTION bump_read_generation('waivers');

-- Down Migration
DROP TRIGGER waivers_bump_waivers_generation ON waivers;
DROP TRIGGER scans_bump_findings_generation_on_delete ON scans;
DROP TRIGGER scans_bump_findings_generation_on_insert ON scans;
DROP TRIGGER scans_bump_findings_generation ON scans;
DROP FUNCTION bump_read_generation();
DROP TABLE read_generations;
