/**
 * Cloud Assistant invocations made through the simulator (ECS RunCommand), kept in memory so
 * DescribeInvocationResults can report them. Bounded: the oldest invocations are dropped past
 * {@link MAX_INVOCATIONS}, as the real service keeps a bounded history (10,000 records, 30 days;
 * `research/alibaba-cloud-api.md` section 4).
 */

/** Invocations kept before the oldest are dropped. */
export const MAX_INVOCATIONS = 10_000;

/** One instance's result, wire field names of `InvocationResults.InvocationResult[]`. */
export interface InvocationInstanceResult {
  InstanceId: string;
  InvocationStatus: 'Success' | 'Failed';
  ExitCode: number;
  /** Plain text; DescribeInvocationResults encodes it as requested. */
  Output: string;
  ErrorCode: string;
  ErrorInfo: string;
}

/** One RunCommand call. */
export interface Invocation {
  invokeId: string;
  commandId: string;
  accountId: string;
  regionId: string;
  /** ISO time without milliseconds. */
  time: string;
  results: InvocationInstanceResult[];
}

/** Insertion-ordered, bounded store of invocations. */
export class InvocationStore {
  private readonly byId = new Map<string, Invocation>();

  /** Record an invocation (drops the oldest past {@link MAX_INVOCATIONS}). */
  add(invocation: Invocation): void {
    this.byId.set(invocation.invokeId, invocation);
    if (this.byId.size > MAX_INVOCATIONS) {
      const oldest = this.byId.keys().next().value;
      if (oldest !== undefined) this.byId.delete(oldest);
    }
  }

  /** Invocations of one account and region, oldest first. */
  list(accountId: string, regionId: string): Invocation[] {
    return [...this.byId.values()].filter((i) => i.accountId === accountId && i.regionId === regionId);
  }

  /** One invocation of an account, or `undefined`. */
  get(accountId: string, invokeId: string): Invocation | undefined {
    const i = this.byId.get(invokeId);
    return i && i.accountId === accountId ? i : undefined;
  }
}
