-- Up Migration
--
-- The large values of the fleet graph compressed with lz4 instead of pglz. A value that makes its row larger than
-- about 2 kB is compressed when it is stored (TOAST; PostgreSQL docs "TOAST"): a server group's backends (2.8 kB per
-- row at 500 clusters), an NLB's listeners and server groups (3.5 kB), a region's unused NLB server groups. pglz costs
-- PostgreSQL about twice the CPU of lz4 there: COPY of a 500-cluster scan's server groups 0.59 -> 0.28 CPU s, of its
-- NLBs 0.57 -> 0.35 CPU s (PostgreSQL 15, measured alone). Rows already stored keep their pglz values (both read
-- back the same); only new values use lz4.
-- A server built without lz4 (`--with-lz4`, PostgreSQL 14+; the embedded PGlite is one) refuses the method with
-- feature_not_supported: pglz stays there.
-- Append-only: never edit once released (STYLE.md D.14).

DO $$
BEGIN
  ALTER TABLE graph_server_groups ALTER COLUMN backends SET COMPRESSION lz4;
  ALTER TABLE graph_nlbs ALTER COLUMN listeners SET COMPRESSION lz4, ALTER COLUMN server_groups SET COMPRESSION lz4;
  ALTER TABLE graph_regions ALTER COLUMN unused_nlb_server_groups SET COMPRESSION lz4;
  ALTER TABLE graph_load_balancers ALTER COLUMN listeners SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;

-- Down Migration
ALTER TABLE graph_server_groups ALTER COLUMN backends SET COMPRESSION default;
ALTER TABLE graph_nlbs ALTER COLUMN listeners SET COMPRESSION default, ALTER COLUMN server_groups SET COMPRESSION default;
ALTER TABLE graph_regions ALTER COLUMN unused_nlb_server_groups SET COMPRESSION default;
ALTER TABLE graph_load_balancers ALTER COLUMN listeners SET COMPRESSION default;
