-- Up Migration
--
-- An NLB's server groups with their servers stored as packed JSON text instead of jsonb (libs/store
-- fleet-graph.repository.ts `NlbServerGroupsJson`, read by fleet-graph.columns.ts `unpackedRowsOf`): each server group and each
-- server an array of its declared fields in declaration order (GRAPH_NLB_SERVER_GROUP: serverGroupId, name, type,
-- protocol, status, ownerTag, serverCount, servers; GRAPH_NLB_SERVER: serverId, serverIp, type, port, weight, status,
-- zoneId), without the field names each server repeated. Nothing queries inside the value; the store reads it whole.
-- Why: the 2,000-cluster bench scan's 11,000 NLB rows are 155 MB of JSON text (14 kB each); COPY of them into the
-- jsonb column took PostgreSQL 2.4-2.7 s, into a text column 0.73 s (PostgreSQL 15, this VM, measured alone), and
-- packed the text is about a third of that. The rows stored before keep their objects as the text jsonb writes them;
-- the store reads both forms (`unpackedRowsOf`).
-- lz4 kept where the server has it, as migration 1800200000001 set it (pglz where it does not: PGlite).
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE graph_nlbs ALTER COLUMN server_groups TYPE text USING server_groups::text;

DO $$
BEGIN
  ALTER TABLE graph_nlbs ALTER COLUMN server_groups SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;

-- Down Migration
-- Packed values back to objects with the declared field names (the form before this migration), by a function of
-- this migration's own (ALTER COLUMN ... USING takes no subquery), dropped after.
CREATE FUNCTION fleet_audit_unpacked_nlb_server_groups(v text) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $f$
  SELECT COALESCE(jsonb_agg(
    CASE WHEN jsonb_typeof(g) = 'array' THEN jsonb_build_object(
      'serverGroupId', g->0, 'name', g->1, 'type', g->2, 'protocol', g->3, 'status', g->4, 'ownerTag', g->5,
      'serverCount', g->6,
      'servers', (SELECT COALESCE(jsonb_agg(
                    CASE WHEN jsonb_typeof(sv) = 'array' THEN jsonb_build_object(
                      'serverId', sv->0, 'serverIp', sv->1, 'type', sv->2, 'port', sv->3, 'weight', sv->4,
                      'status', sv->5, 'zoneId', sv->6)
                    ELSE sv END ORDER BY so), '[]'::jsonb)
                  FROM jsonb_array_elements(g->7) WITH ORDINALITY AS s (sv, so)))
    ELSE g END ORDER BY go), '[]'::jsonb)
  FROM jsonb_array_elements(v::jsonb) WITH ORDINALITY AS t (g, go)
$f$;
ALTER TABLE graph_nlbs ALTER COLUMN server_groups TYPE jsonb USING fleet_audit_unpacked_nlb_server_groups(server_groups);
DROP FUNCTION fleet_audit_unpacked_nlb_server_groups(text);
DO $$
BEGIN
  ALTER TABLE graph_nlbs ALTER COLUMN server_groups SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;
