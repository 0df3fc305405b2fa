/**
 * STS 2015-04-01 (RPC): AssumeRole and GetCallerIdentity.
 *
 * Source: `research/alibaba-cloud-api.md` section 5, the @alicloud/sts20150401 1.2.0 models
 * (`research/sdk-model-shapes.txt`) and the AssumeRole API reference (alibabacloud.com, "AssumeRole"
 * response example and error codes):
 * - AssumeRole `RoleArn` (`acs:ram::<uid>:role/<name>`), `RoleSessionName` (2-64 of
 *   `[A-Za-z0-9.@_-]`), `DurationSeconds` (900 up to the role's `MaxSessionDuration`, 3600 when the
 *   fleet does not give one; default 3600), optional `Policy` (JSON, at most 2048 bytes),
 *   `ExternalId`, `SourceIdentity` -> `{RequestId, [SourceIdentity], AssumedRoleUser:{Arn:
 *   acs:ram::<uid>:role/<name>/<session>, AssumedRoleId: <roleId>:<session>}, Credentials:
 *   {AccessKeyId: "STS.…", AccessKeySecret, SecurityToken, Expiration: "YYYY-MM-DDTHH:MM:SSZ"}}`.
 *   Errors: 400 `MissingRoleArn`, `MissingRoleSessionName`, `InvalidParameter.RoleArn`,
 *   `InvalidParameter.RoleSessionName`, `InvalidParameter.DurationSeconds`,
 *   `InvalidParameter.PolicyGrammar`, `InvalidParameter.PolicySize`; 404 `EntityNotExist.Role`.
 * - GetCallerIdentity: base key `{AccountId, Arn: acs:ram::<uid>:root, IdentityType: "Account",
 *   PrincipalId, UserId}`; STS key `{AccountId, Arn: acs:ram::<uid>:assumed-role/<name>/<session>,
 *   IdentityType: "AssumedRoleUser", PrincipalId: <roleId>:<session>, RoleId}` (the shape
 *   `aliyun sts GetCallerIdentity` prints for a role session).
 *
 * Which roles exist (the simulator's stand-in for RAM trust policies): the account of the ARN must
 * be in the fleet; when it has `ram/roles.json` the role must be listed there, except the audit
 * role, which is always accepted: {@link FLEET_AUDIT_ROLE_NAME} or the role of the account's
 * `auditRoleArn` (`account.yaml`). An account without `roles.json` accepts any role name.
 * The issued key reads the role's account (every data API then answers with that account's
 * resources only).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { WireRamRole } from '@app/domain';
import type { AccountEntry } from '../fleet/fleet-index.repository';
import { AcsError } from './acs-error.exception';
import type { RpcHandler, RpcProduct } from './acs-request';

/** The audit role name every fleet account accepts (the scan config's default `auditRoleArn`). */
export const FLEET_AUDIT_ROLE_NAME = 'fleet-audit-readonly';

/** AssumeRole `DurationSeconds` bounds and default, seconds (STS API reference). */
export const STS_DURATION_SECONDS = { min: 900, defaultMax: 3600, default: 3600 } as const;

/** Largest accepted session `Policy`, bytes (STS error `InvalidParameter.PolicySize`). */
const MAX_POLICY_BYTES = 2048;

const ROLE_ARN = /^acs:ram::(\d+):role\/([^/]+)$/i;
const SESSION_NAME = /^[A-Za-z0-9.@_-]{2,64}$/;

/** The default audit role ARN of an account: its `auditRoleArn`, else `acs:ram::<uid>:role/fleet-audit-readonly`. */
export function auditRoleArnOf(account: AccountEntry): string {
  const own = account.wire.account.auditRoleArn;
  return own !== undefined && own !== ''
    ? own
    : `acs:ram::${account.accountId}:role/${FLEET_AUDIT_ROLE_NAME}`;
}

const roleNotFound = () => new AcsError(404, 'EntityNotExist.Role', 'The specified Role not exists .');

/** A stable 17-digit role id for a role the fleet does not list (real role ids are numeric). */
function derivedRoleId(accountId: string, roleName: string): string {
  const hex = createHash('sha256').update(`${accountId}/${roleName.toLowerCase()}`).digest('hex');
  return `3${(BigInt(`0x${hex.slice(0, 16)}`) % 10n ** 16n).toString().padStart(16, '0')}`;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function randomAlnum(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALNUM[b % ALNUM.length];
  return out;
}

/** ISO-8601 UTC without milliseconds, as STS prints `Expiration`. */
const isoSeconds = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

interface ResolvedRole {
  account: AccountEntry;
  roleName: string;
  roleId: string;
  maxSessionSeconds: number;
}

function resolveRole(account: AccountEntry | undefined, requestedName: string): ResolvedRole {
  if (!account) throw roleNotFound();
  const lower = requestedName.toLowerCase();
  const stored: WireRamRole | undefined = account.ram?.roles.find((r) => r.RoleName.toLowerCase() === lower);
  const auditName = ROLE_ARN.exec(auditRoleArnOf(account))?.[2]?.toLowerCase();
  const accepted =
    stored !== undefined ||
    account.ram === undefined ||
    lower === FLEET_AUDIT_ROLE_NAME ||
    lower === auditName;
  if (!accepted) throw roleNotFound();
  const max = (stored as Record<string, unknown> | undefined)?.['MaxSessionDuration'];
  return {
    account,
    roleName: stored?.RoleName ?? requestedName,
    roleId: stored?.RoleId ?? derivedRoleId(account.accountId, requestedName),
    maxSessionSeconds:
      typeof max === 'number' && Number.isInteger(max) && max >= STS_DURATION_SECONDS.min
        ? max
        : STS_DURATION_SECONDS.defaultMax,
  };
}

const assumeRole: RpcHandler = (req, ctx) => {
  const p = req.params;
  const roleArn = p.str('RoleArn');
  if (roleArn === undefined)
    throw new AcsError(400, 'MissingRoleArn', 'RoleArn is mandatory for this action.');
  const sessionName = p.str('RoleSessionName');
  if (sessionName === undefined)
    throw new AcsError(400, 'MissingRoleSessionName', 'RoleSessionName is mandatory for this action.');
  const arn = ROLE_ARN.exec(roleArn);
  if (!arn) throw new AcsError(400, 'InvalidParameter.RoleArn', 'The parameter RoleArn is wrongly formed.');
  if (!SESSION_NAME.test(sessionName))
    throw new AcsError(
      400,
      'InvalidParameter.RoleSessionName',
      'The parameter RoleSessionName is wrongly formed.',
    );
  const durationError = () =>
    new AcsError(
      400,
      'InvalidParameter.DurationSeconds',
      'The Min/Max value of DurationSeconds is 15min/1hr.',
    );
  let duration: number;
  try {
    duration = p.int('DurationSeconds') ?? STS_DURATION_SECONDS.default;
  } catch {
    throw durationError();
  }
  const policy = p.str('Policy');
  if (policy !== undefined) {
    if (Buffer.byteLength(policy) > MAX_POLICY_BYTES)
      throw new AcsError(
        400,
        'InvalidParameter.PolicySize',
        'The size of Policy must be smaller than 2048 bytes.',
      );
    let doc: unknown;
    try {
      doc = JSON.parse(policy);
    } catch {
      doc = undefined;
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
      throw new AcsError(
        400,
        'InvalidParameter.PolicyGrammar',
        'The parameter Policy has not passed grammar check.',
      );
  }
  const role = resolveRole(ctx.fleet.account(arn[1] as string), arn[2] as string);
  if (duration < STS_DURATION_SECONDS.min || duration > role.maxSessionSeconds) throw durationError();

  const now = ctx.now();
  const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + duration * 1000);
  const accessKeyId = `STS.NU${randomAlnum(26)}`;
  const accessKeySecret = randomAlnum(44);
  const securityToken = `CAIS${randomBytes(192).toString('base64')}`;
  ctx.credentials.add(
    {
      accessKeyId,
      accessKeySecret,
      accountId: role.account.accountId,
      securityToken,
      expiresAt,
      assumedRole: { roleName: role.roleName, roleId: role.roleId, sessionName },
    },
    now,
  );
  const sourceIdentity = p.str('SourceIdentity');
  return {
    ...(sourceIdentity !== undefined ? { SourceIdentity: sourceIdentity } : {}),
    AssumedRoleUser: {
      Arn: `acs:ram::${role.account.accountId}:role/${role.roleName}/${sessionName}`,
      AssumedRoleId: `${role.roleId}:${sessionName}`,
    },
    Credentials: {
      AccessKeyId: accessKeyId,
      AccessKeySecret: accessKeySecret,
      SecurityToken: securityToken,
      Expiration: isoSeconds(expiresAt),
    },
  };
};

const getCallerIdentity: RpcHandler = (req) => {
  const accountId = req.account.accountId;
  const role = req.caller.credential.assumedRole;
  if (role !== undefined)
    return {
      AccountId: accountId,
      Arn: `acs:ram::${accountId}:assumed-role/${role.roleName}/${role.sessionName}`,
      IdentityType: 'AssumedRoleUser',
      PrincipalId: `${role.roleId}:${role.sessionName}`,
      RoleId: role.roleId,
    };
  return {
    AccountId: accountId,
    Arn: `acs:ram::${accountId}:root`,
    IdentityType: 'Account',
    PrincipalId: accountId,
    UserId: accountId,
  };
};

/** The simulated STS product. */
export const STS_PRODUCT: RpcProduct = {
  product: 'Sts',
  version: '2015-04-01',
  hostId: 'sts.aliyuncs.com',
  actions: { AssumeRole: assumeRole, GetCallerIdentity: getCallerIdentity },
};
