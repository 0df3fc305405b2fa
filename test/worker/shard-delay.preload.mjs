/**
 * Test-only preload of worker processes (crash-safety.integration-spec.ts, `node --import`): holds each shard's
 * store transaction open for SHARD_DELAY_MS milliseconds after its findings were written (the quota samples are
 * the next write), and prints `{"shardDelay":"<shard key>"}` when it starts waiting, so a test can SIGKILL the
 * worker mid-shard, with the shard's transaction half written. Patches the built store (SHARD_DELAY_DIST: the
 * suite's build root), which the worker loads from the same files.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);

const dist = process.env.SHARD_DELAY_DIST;
const delayMs = Number(process.env.SHARD_DELAY_MS);
if (dist && delayMs > 0) {
  const { ScanShardRepository } = require(join(dist, 'libs', 'store', 'src', 'scan-shard.repository.js'));
  const storeDone = ScanShardRepository.prototype.storeDone;
  ScanShardRepository.prototype.storeDone = function (scanId, place, part) {
    const quota = this.quotaUsage;
    const insert = quota.insertForScan;
    // Only inside this shard's transaction: findings are written, the transaction is open.
    quota.insertForScan = async function (...args) {
      quota.insertForScan = insert;
      process.stdout.write(`${JSON.stringify({ shardDelay: place.shardKey })}\n`);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return insert.apply(this, args);
    };
    return storeDone.call(this, scanId, place, part);
  };
}
