import { Inject, Injectable } from '@nestjs/common';
import {
  AccountCredentialsResolver,
  dara,
  stsSdk,
  CollectError,
  CredentialsConfigError,
  resolveBaseCredentials,
  stsConfig,
  type CredentialsFor,
  type ScanConfig,
} from '@app/collectors';
import { SCAN_RATE_LIMITER, WORKER_OPTIONS } from '../worker.constants';
import type { ResolvedWorkerOptions } from '../worker.options';
import { processEnvironment } from '@app/config';
import type { RateLimiterFactory } from './rate-limiter.factory';

/**
 * Credentials of crawls in a worker process, and the pacing of the STS calls behind them.
 *
 * - Jobs carry no secret (libs/queue queued-credentials.ts). The base credentials are resolved
 *   here, from this process only: the config's env variable names from this process's
 *   environment, no block from the default chain, and a job's `credentialsSource` from the
 *   `credentials` block of this worker's own scan config of that name (`sources`: `SCAN_CONFIGS`
 *   or `fleet-audit worker --config`). Such a job must name the same `alibabaCloud.endpoint` as
 *   that config: the AccessKey signs requests only to the endpoint its own file names.
 *
 * - One `AccountCredentialsResolver` per distinct (endpoint, base credentials, base account) per
 *   process, so every crawl job of every scan reuses the cached AssumeRole tokens (valid an hour,
 *   refreshed 5 minutes before expiry) instead of calling STS once per job.
 * - AssumeRole is signed with the base credentials, so it draws from the budget of the account
 *   those belong to (the budget model of libs/collectors api-rate-limiter.util.ts: every call made
 *   with an account's credentials counts). The plan job asks STS GetCallerIdentity once per scan
 *   which account that is; crawls then pace AssumeRole under it through the shared Redis limiter.
 *   Without it (GetCallerIdentity failed) AssumeRole runs unpaced, as in a local scan.
 */
@Injectable()
export class CrawlCredentialsProvider {
  private readonly resolvers = new Map<string, AccountCredentialsResolver>();

  constructor(
    @Inject(SCAN_RATE_LIMITER) private readonly rateLimiterFor: RateLimiterFactory,
    @Inject(WORKER_OPTIONS) private readonly options: Pick<ResolvedWorkerOptions, 'sources'>,
  ) {}

  /**
   * The job's config with the credentials block it refers to: unchanged without
   * `credentialsSource`, else with the `credentials` of this worker's own scan config of that name.
   * @param config the config of a job (no literal AccessKey)
   * @param credentialsSource the job's reference, if any
   * @throws CredentialsConfigError naming the config and its accounts when this worker has no
   *   scan config of that name, that config has no credentials block, or its endpoint differs
   */
  withCredentials(config: ScanConfig, credentialsSource: string | undefined): ScanConfig {
    if (credentialsSource === undefined) return config;
    const accounts = config.accounts.map((a) => a.accountId).join(', ');
    const own = this.options.sources.find((s) => s.name === credentialsSource)?.config;
    const cannot = `cannot read accounts ${accounts}: scan config "${credentialsSource}" has an inline AccessKey, which is never put on the queue`;
    if (!own)
      throw new CredentialsConfigError(
        `${cannot}, and this worker has no scan config named "${credentialsSource}" to take it from (give the workers the same file in SCAN_CONFIGS or fleet-audit worker --config, or use credentials.accessKeyIdEnv/accessKeySecretEnv or the default credentials chain)`,
      );
    if (!own.credentials)
      throw new CredentialsConfigError(
        `${cannot}, and this worker's scan config "${credentialsSource}" has no credentials block`,
      );
    const wanted = config.alibabaCloud.endpoint ?? '(the regional endpoints)';
    const ownEndpoint = own.alibabaCloud.endpoint ?? '(the regional endpoints)';
    if (wanted !== ownEndpoint)
      throw new CredentialsConfigError(
        `${cannot}, and the job's endpoint ${wanted} is not the one this worker's copy names (${ownEndpoint}): refusing to sign requests to it with that AccessKey`,
      );
    return { ...config, credentials: own.credentials };
  }

  /**
   * The account id the config's base credentials belong to (STS GetCallerIdentity), or undefined
   * when it cannot be told (the call failed: the crawls will record the real error per target).
   * @param credentialsSource the job's reference to this worker's own scan config, if any
   * @throws CredentialsConfigError when a named credentials env variable is unset, or the
   *   reference cannot be resolved (`withCredentials`)
   */
  async baseAccountOf(config: ScanConfig, credentialsSource?: string): Promise<string | undefined> {
    config = this.withCredentials(config, credentialsSource);
    const base = resolveBaseCredentials(config, processEnvironment());
    const sts = new (stsSdk().default)(stsConfig(config.alibabaCloud, base));
    try {
      const resp = await sts.getCallerIdentityWithOptions(new (dara().RuntimeOptions)({}));
      const id = resp.body?.accountId;
      return id && /^\d+$/.test(id) ? id : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Credentials per account for crawls of `config`.
   * @param baseAccountId the account of the base credentials (from the plan job), if known
   * @param credentialsSource the job's reference to this worker's own scan config, if any
   * @throws CredentialsConfigError when the reference cannot be resolved (`withCredentials`)
   */
  credentialsFor(config: ScanConfig, baseAccountId: string | undefined, credentialsSource?: string): CredentialsFor {
    config = this.withCredentials(config, credentialsSource);
    const key = JSON.stringify([config.alibabaCloud, config.credentials ?? null, baseAccountId ?? null]);
    let resolver = this.resolvers.get(key);
    if (!resolver) {
      const limiter = baseAccountId ? this.rateLimiterFor(config) : undefined;
      const settings = config.collector;
      resolver = new AccountCredentialsResolver(config, {
        run: async <T>(api: string, fn: () => Promise<T>): Promise<T> => {
          for (let attempt = 1; ; attempt += 1) {
            try {
              return await (limiter && baseAccountId ? limiter.schedule(baseAccountId, api, fn) : fn());
            } catch (e) {
              if (!(e instanceof CollectError && e.retryable) || attempt >= settings.maxAttempts) throw e;
              const cap = Math.min(settings.retryMaxDelayMs, settings.retryBaseDelayMs * 2 ** (attempt - 1));
              const wait = Math.max(
                Math.floor(Math.random() * cap),
                Math.min(e.retryAfterMs ?? 0, settings.retryMaxDelayMs),
              );
              await new Promise((r) => setTimeout(r, wait));
            }
          }
        },
      });
      this.resolvers.set(key, resolver);
    }
    const r = resolver;
    return (account) => r.credentialsFor(account);
  }
}
