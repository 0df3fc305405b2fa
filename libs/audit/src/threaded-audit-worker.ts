/**
 * Thread entry of the threaded analysis (`runThreadedAudit`, threaded-audit.ts): piscina loads this module once per
 * thread and calls its default export once per shard, with the shard's task as plain data (structured clone). The
 * answer's result bytes are moved, not copied (`Piscina.move` with their ArrayBuffers). Built by `nest build cli`
 * next to threaded-audit.js.
 *
 * The analysis code (threaded-audit-shard.ts and the libraries it imports) is loaded by the thread's first shard, not
 * when the thread starts: a failure while loading it then fails that shard with its own error, named by the shard
 * (piscina reports a thread that fails before its first task only as a pool event).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a relative `require`: the build rewrites path aliases only in static imports (as apps/cli/src/lazy) */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { AuditShardAnswer, AuditShardTask, ShardInvalidFile } from './threaded-audit-shard';

type ShardCode = typeof import('./threaded-audit-shard');

/** The analysis code, once the thread's first shard has loaded it. */
let code: ShardCode | undefined;

/**
 * Analyzes one shard on this thread (piscina's task handler).
 * @returns the shard's answer, its result bytes moved to the caller; or, for an invalid file of the shard, where it is
 * @throws what else `auditShard` throws (the pool names the shard)
 */
export default function threadedAuditTask(task: AuditShardTask): unknown {
  code ??= require('./threaded-audit-shard') as ShardCode;
  let answer: AuditShardAnswer;
  try {
    answer = code.auditShard(task);
  } catch (e) {
    // A structured clone keeps an error's message, not its class and fields: an invalid file is answered as data, so
    // that the pool throws the same FleetValidationError as the one-thread read.
    const invalid = code.fleetValidationOf(e);
    if (invalid) return { invalidFile: invalid } satisfies ShardInvalidFile;
    throw e;
  }
  const buffers = (answer.resultsJson ?? []).map((b) => b.buffer);
  if (buffers.length === 0) return answer;
  return move({
    get [transferableSymbol]() {
      return buffers;
    },
    get [valueSymbol]() {
      return answer;
    },
  } as unknown as ArrayBuffer);
}
