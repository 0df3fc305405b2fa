-- Up Migration
--
-- Account-scoped reads of the fleet graph at fleet scale (issue 22 item 4, `npm run bench:scale`): a listing with
-- `accountId` (and every read of a token scoped to some accounts: the scope is an `account_id` condition) pages
-- CLBs, NLBs and ECS instances by id within an account, and counts them for `total`. With only the primary keys
-- (scan_id, <id>), PostgreSQL filtered the whole scan's rows for each count: 56 ms for the 100,000 ECS instances
-- of a 1,000-cluster scan, growing with the fleet. These indexes make both an index range scan of the account.
-- The quota samples (about 1M rows per scan of a 5,000-cluster fleet) had only their primary key (scan_id, check_id,
-- ...) and (check_id, account_id, ...): the samples of one resource (the quota usage of `/v1/nlbs/{id}` and
-- `/v1/ecs-instances/{id}`: 545 ms at 1,000 clusters) and a `minRatio` listing's count (729 ms) each read every
-- sample of the scan. (An account's quota trends read every sample of the account in the window; PostgreSQL prefers
-- a sequential scan for that share of the rows, so no index is added for them: see the issue 22 note.)
-- Append-only: never edit once released (STYLE.md D.14).

CREATE INDEX graph_ecs_instances_account_idx ON graph_ecs_instances (scan_id, account_id, instance_id);
CREATE INDEX graph_load_balancers_account_idx ON graph_load_balancers (scan_id, account_id, load_balancer_id);
CREATE INDEX graph_nlbs_account_idx ON graph_nlbs (scan_id, account_id, nlb_id);
CREATE INDEX quota_usage_scan_resource_idx ON quota_usage (scan_id, resource_id);
CREATE INDEX quota_usage_scan_ratio_idx ON quota_usage (scan_id, ratio);

-- Down Migration
DROP INDEX quota_usage_scan_ratio_idx;
DROP INDEX quota_usage_scan_resource_idx;
DROP INDEX graph_nlbs_account_idx;
DROP INDEX graph_load_balancers_account_idx;
DROP INDEX graph_ecs_instances_account_idx;
