/**
 * STS 2015-04-01 (RPC): GetCallerIdentity, so a client can learn which fleet account its
 * AccessKey reads. Response shape from the @alicloud/sts20150401 1.2.0 model
 * (`research/sdk-model-shapes.txt`). AssumeRole is a later addition (see `credential.store.ts`).
 */
import type { RpcHandler, RpcProduct } from './acs-request';

const getCallerIdentity: RpcHandler = (req) => {
  const accountId = req.account.accountId;
  const sts = req.caller.credential.securityToken !== undefined;
  return {
    AccountId: accountId,
    Arn: sts
      ? `acs:ram::${accountId}:assumed-role/sim/${req.caller.credential.accessKeyId}`
      : `acs:ram::${accountId}:root`,
    IdentityType: sts ? 'AssumedRoleUser' : 'Account',
    PrincipalId: accountId,
    UserId: accountId,
  };
};

/** The simulated STS product. */
export const STS_PRODUCT: RpcProduct = {
  product: 'Sts',
  version: '2015-04-01',
  hostId: 'sts.aliyuncs.com',
  actions: { GetCallerIdentity: getCallerIdentity },
};
