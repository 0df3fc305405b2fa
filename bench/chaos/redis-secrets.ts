/**
 * Look for secrets in every Redis key of some prefixes ("a test scans every Redis
 * key after a distributed scan for the secret"). Used by test/worker/redis-secrets and `npm run
 * chaos`. Every key is read whole according to its type (string, hash, list, set, zset, stream;
 * ReJSON and other module types are read with DUMP), names included, and searched for each secret
 * as plain text and as its JSON-escaped form.
 */
import IORedis from 'ioredis';

/** One hit: which key held which secret. */
export interface RedisSecretHit {
  key: string;
  type: string;
  /** Index of the secret in the list searched for (never the secret itself). */
  secret: number;
}

/** What a search saw and found. */
export interface RedisSecretScan {
  /** Keys read, by Redis type. */
  keysByType: Record<string, number>;
  hits: RedisSecretHit[];
}

/** Every value of one key as text (names and values alike). */
async function textOf(redis: IORedis, key: string, type: string): Promise<string> {
  switch (type) {
    case 'string':
      return (await redis.getBuffer(key))?.toString('latin1') ?? '';
    case 'hash':
      return Object.entries(await redis.hgetall(key)).flat().join('\n');
    case 'list':
      return (await redis.lrange(key, 0, -1)).join('\n');
    case 'set':
      return (await redis.smembers(key)).join('\n');
    case 'zset':
      return (await redis.zrange(key, '0', '-1', 'WITHSCORES')).join('\n');
    case 'stream':
      return JSON.stringify(await redis.xrange(key, '-', '+'));
    case 'none':
      return ''; // expired between SCAN and TYPE
    default:
      return (await redis.dumpBuffer(key))?.toString('latin1') ?? '';
  }
}

/**
 * Read every key matching `<prefix>*` for each prefix and search for the secrets.
 * @param redisUrl the Redis to read (never written)
 * @param patterns SCAN MATCH patterns, e.g. `fleet-audit:*` and `b_fleet-audit:*` (Bottleneck's keys)
 * @param secrets strings that must not appear (empty strings are ignored)
 * @throws the connection error when Redis is unreachable
 */
export async function scanRedisForSecrets(
  redisUrl: string,
  patterns: readonly string[],
  secrets: readonly string[],
): Promise<RedisSecretScan> {
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 2, lazyConnect: true });
  redis.on('error', () => undefined);
  const keysByType: Record<string, number> = {};
  const hits: RedisSecretHit[] = [];
  const needles = secrets.map((s, i) => ({ i, forms: s ? [s, JSON.stringify(s).slice(1, -1)] : [] }));
  try {
    await redis.connect();
    for (const pattern of patterns) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        for (const key of keys) {
          const type = await redis.type(key);
          keysByType[type] = (keysByType[type] ?? 0) + 1;
          const text = `${key}\n${await textOf(redis, key, type)}`;
          for (const n of needles) if (n.forms.some((f) => text.includes(f))) hits.push({ key, type, secret: n.i });
        }
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
  return { keysByType, hits };
}
