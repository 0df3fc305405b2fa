/**
 * The request model handed to the simulated Alibaba Cloud API handlers, and the handler types.
 */
import type { AccountEntry } from '../fleet/fleet-index.repository';
import type { RpcParams } from '../http/params.util';
import type { SimContext } from '../sim-context';
import type { AcsCaller } from './request-auth.service';

/** One authenticated API request. */
export interface AcsRequest {
  requestId: string;
  method: string;
  action: string;
  version: string;
  /** RPC: merged query + form parameters; ROA: query parameters. */
  params: RpcParams;
  /** ROA only: decoded path parameters by name (`ClusterId`, ...). */
  pathParams: Readonly<Record<string, string>>;
  caller: AcsCaller;
  /** The fleet account the caller's AccessKey reads. */
  account: AccountEntry;
}

/**
 * An RPC action handler: returns the success body without `RequestId` (the gateway puts it
 * first), or throws AcsError.
 */
export type RpcHandler = (req: AcsRequest, ctx: SimContext) => Record<string, unknown>;

/** A CS ROA handler: returns the success body (object or bare array), or throws AcsError. */
export type RoaHandler = (req: AcsRequest, ctx: SimContext) => unknown;

/** An RPC product: its API version, host (for error `HostId`) and actions. */
export interface RpcProduct {
  /** Product name as used in `Recommend` links (`Ecs`, `Slb`, ...). */
  product: string;
  version: string;
  hostId: string;
  actions: Readonly<Record<string, RpcHandler>>;
}
