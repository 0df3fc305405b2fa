-- Up Migration
--
-- Fingerprints from identity only (issue 14 item 7). The resource key of a region-scoped kind
-- (LoadBalancer, VServerGroup, EcsInstance, VSwitch) no longer includes the cluster: it is
-- kind|account|region||id, as libs/checks fingerprint.util.ts computes it now:
--   fingerprint = first 32 hex chars of sha256(check_id || NUL || key)
-- This rewrites every stored fingerprint of those kinds to the new value and merges the sightings
-- history (earliest first sighting, latest last sighting) of old fingerprints that now name the
-- same resource (the same ECS instance seen under two clusters). Within one scan, findings that
-- collapse onto one fingerprint keep the most severe (as FindingRepository.replaceForScan does).
-- Append-only: never edit once released (STYLE.md D.14).

CREATE TEMP TABLE fp_map AS
SELECT DISTINCT f.fingerprint AS old_fp,
       substr(encode(sha256(convert_to(f.check_id, 'UTF8') || '\x00'::bytea ||
              convert_to(f.resource_kind || '|' || f.account_id || '|' || f.region_id || '||' || f.resource_id, 'UTF8')), 'hex'), 1, 32) AS new_fp
  FROM findings f
 WHERE f.resource_kind IN ('LoadBalancer', 'VServerGroup', 'EcsInstance', 'VSwitch');
DELETE FROM fp_map WHERE old_fp = new_fp;
CREATE INDEX ON fp_map (old_fp);

-- One finding per (scan, new fingerprint): keep the most severe.
DELETE FROM findings f
 USING (SELECT x.ctid AS row_ctid,
               row_number() OVER (PARTITION BY x.scan_id, COALESCE(m.new_fp, x.fingerprint)
                                  ORDER BY x.severity_rank DESC, x.fingerprint) AS rn
          FROM findings x LEFT JOIN fp_map m ON m.old_fp = x.fingerprint) d
 WHERE f.ctid = d.row_ctid AND d.rn > 1;

UPDATE findings f SET fingerprint = m.new_fp FROM fp_map m WHERE f.fingerprint = m.old_fp;

-- Merged sightings of each new fingerprint (old ones and, if any, one already stored under it).
WITH src AS (
  SELECT m.new_fp, ff.check_id, ff.first_seen_at, ff.last_seen_at, ff.first_scan_id, ff.last_scan_id
    FROM finding_fingerprints ff JOIN fp_map m ON m.old_fp = ff.fingerprint
  UNION ALL
  SELECT ff.fingerprint, ff.check_id, ff.first_seen_at, ff.last_seen_at, ff.first_scan_id, ff.last_scan_id
    FROM finding_fingerprints ff WHERE ff.fingerprint IN (SELECT new_fp FROM fp_map)
), firsts AS (
  SELECT DISTINCT ON (new_fp) new_fp, check_id, first_seen_at, first_scan_id FROM src ORDER BY new_fp, first_seen_at ASC
), lasts AS (
  SELECT DISTINCT ON (new_fp) new_fp, last_seen_at, last_scan_id FROM src ORDER BY new_fp, last_seen_at DESC
)
INSERT INTO finding_fingerprints AS ff (fingerprint, check_id, first_seen_at, last_seen_at, first_scan_id, last_scan_id)
SELECT f.new_fp, f.check_id, f.first_seen_at, l.last_seen_at, f.first_scan_id, l.last_scan_id
  FROM firsts f JOIN lasts l USING (new_fp)
ON CONFLICT (fingerprint) DO UPDATE SET
  first_seen_at = EXCLUDED.first_seen_at, first_scan_id = EXCLUDED.first_scan_id,
  last_seen_at  = EXCLUDED.last_seen_at,  last_scan_id  = EXCLUDED.last_scan_id;

DELETE FROM finding_fingerprints
 WHERE fingerprint IN (SELECT old_fp FROM fp_map)
   AND fingerprint NOT IN (SELECT new_fp FROM fp_map);

DROP TABLE fp_map;

-- Down Migration
-- Not reversible: the merged history cannot be split again. Nothing to do (old fingerprints are gone).
SELECT 1;
