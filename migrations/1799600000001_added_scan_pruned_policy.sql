-- Up Migration
--
-- A pruned scan says how it was pruned: the retention policy in force when its findings, targets, snapshot and
-- fleet graph were deleted (libs/store RetentionPolicy: rawHours, dailyDays, weeklyWeeks, quotaDays), beside
-- pruned_at. Readers of such a scan's findings (REST 410 SCAN_PRUNED, GraphQL SCAN_PRUNED, the CLI) name both
-- instead of answering an empty list, which is what a healthy scan without findings answers.
--   scans.pruned_policy: the policy as JSON; NULL for scans pruned before it was recorded, and whole scans.
-- Append-only: never edit once released (STYLE.md D.14).

ALTER TABLE scans ADD COLUMN pruned_policy jsonb;

-- Down Migration
ALTER TABLE scans DROP COLUMN pruned_policy;
