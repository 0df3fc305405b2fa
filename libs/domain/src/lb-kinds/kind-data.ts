/**
 * The data path of a load-balancer kind: what the generic code of the collectors, the offline fleet format, the
 * snapshot mapper and the simulator iterate over, so that a kind declares its API, its files and its snapshot
 * records in its own module (`LoadBalancerKind.data`) instead of each of those layers naming the kind.
 *
 * A kind's data is one coverage dataset (`dataset`, e.g. `nlb`) of a region: a few lists, each the items of one
 * List* action of the kind's OpenAPI product, kept unchanged on the wire (`WireRegion[dataset]`), written to the
 * fleet directory as `regions/<regionId>/<dataset>/<file>` (one JSON array per list), and mapped into the kind's
 * fields of `RegionSnapshot`. The kind's crawl is written against `KindCrawlApi` (the collectors implement it over
 * `@alicloud/openapi-core`'s generic client, paced and retried like every other call), its simulator answers are
 * declared as `KindSimulator` (the simulator serves them from the same lists). Nothing here does I/O.
 *
 * CLB keeps its own path (SLB 2014-05-15 pages by number and reads one attribute call per CLB and vServer group,
 * with the top-level fleet files `load-balancers.json` and `vserver-groups.json`); every other kind uses this one.
 */
import type { ZodType } from 'zod';
import type { CoverageDataset, RegionSnapshot } from '../snapshot.types';

/** The wire data of one kind in one region: list name -> the List* items, unchanged. */
export type KindWireLists = Record<string, readonly unknown[]>;

/**
 * The OpenAPI product a kind's data is read from: an RPC product called through the generic client with its
 * parameters in the query (arrays flattened `Name.1=...`), paged by `NextToken` / `MaxResults`.
 */
export interface KindProduct {
  /** Product code as the API gateway and the simulator spell it (`Nlb`). */
  readonly product: string;
  /** API version (`2022-04-30`). */
  readonly version: string;
  /** RAM service prefix of its actions (`nlb`: `nlb:ListLoadBalancers`). */
  readonly ramService: string;
  /** The product's endpoint host in a region (`nlb.<regionId>.aliyuncs.com`). */
  endpoint(regionId: string): string;
  /** `MaxResults` bounds and default of its List* actions. */
  readonly maxResults: { readonly min: number; readonly max: number; readonly default: number };
}

/**
 * What a kind's crawl calls. Every call goes through the account's paced and retried runner and the call log; a
 * failed call throws the collectors' `CollectError` (the kind's dataset is then `failed`).
 */
export interface KindCrawlApi {
  readonly regionId: string;
  /** `accountId/regionId`: the target named in errors and the call log. */
  readonly target: string;
  /**
   * Every item of a `NextToken` / `MaxResults` List* action (the scan's page size, `RegionId` added), in API order.
   * @param listKey the body key of the page's items
   * @param target the target named in errors, when narrower than the region (`account/region/sgp-...`)
   * @throws CollectError on a failed call, a page without the list, or a paging loop
   */
  listAll(action: string, listKey: string, params?: Record<string, unknown>, target?: string): Promise<unknown[]>;
  /**
   * The items validated against `schema`.
   * @throws CollectError `InvalidResponse` naming the action, target and JSON path of the first bad item
   */
  validate<T>(schema: ZodType<T>, items: readonly unknown[], action: string, listKey: string, target?: string): T[];
  /**
   * The string at `field` of every item, in order.
   * @throws CollectError `InvalidResponse` naming the action, target and JSON path of the first item without one
   */
  ids(items: readonly unknown[], field: string, action: string, listKey: string): string[];
  /** Whether an error says the resource was deleted while the crawl read it (`ResourceNotFound.*`, 404). */
  isNotFound(error: unknown): boolean;
}

/** One file of a kind's folder of the fleet directory: one list of its wire data. */
export interface KindFile {
  /** The list it holds (a key of the kind's wire lists). */
  readonly list: string;
  /** File name inside `regions/<regionId>/<dataset>/`. */
  readonly file: string;
  /** Validation of one item (the list's List* item schema). */
  readonly schema: ZodType;
  /** What the file holds, for the format reference (the API call whose items it lists). */
  readonly holds: string;
  /** For the format reference: what the file's absence does beyond failing the dataset. */
  readonly whenAbsent?: string;
}

/**
 * A reference between two lists of a kind's wire data that the reader checks (a listener names a listed NLB): the
 * value of `field` of every item of `list` must be the `toField` of an item of `to`.
 */
export interface KindReference {
  readonly list: string;
  readonly field: string;
  readonly to: string;
  readonly toField: string;
  /** What the referenced item is, in the error (`an NLB`). */
  readonly noun: string;
}

/** Maps a kind's wire lists into its `RegionSnapshot` fields, whole or in consecutive runs of each list. */
export interface KindRegionMapper {
  /** Map one run of any of the lists (a run of a list is added after the runs before it). */
  add(lists: Partial<KindWireLists>): void;
  /** The kind's snapshot fields, joined and sorted. Call once, after the last `add`. */
  result(): Partial<RegionSnapshot>;
}

/** The request parameters a simulated action reads. */
export interface KindSimParams {
  /** A scalar parameter, `undefined` when not given. */
  str(name: string): string | undefined;
}

/** A simulated action's answer for a resource the region does not hold (HTTP 400 with the API's code). */
export class KindResourceNotFoundError extends Error {
  constructor(
    /** The API's error code (`ResourceNotFound.serverGroup`). */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'KindResourceNotFoundError';
  }
}

/** A `Name.N` id-set filter of a List* action: the parameter, its most values, the item field it matches. */
export interface KindSimIdFilter {
  readonly param: string;
  readonly max: number;
  of(item: Record<string, unknown>): string;
}

/** One simulated List* action: what it lists and how it filters (the API reference of the kind's product). */
export interface KindSimList<I = unknown> {
  readonly action: string;
  /** The body key of the page's items. */
  readonly listKey: string;
  /**
   * The region's items in file order, given the region's wire lists and their index (`KindSimulator.index`).
   * @throws KindResourceNotFoundError for a parameter naming a resource the region does not hold
   */
  items(wire: KindWireLists, index: I, p: KindSimParams): readonly Record<string, unknown>[];
  /** Id-set filters, read (and their sizes checked) in this order. */
  readonly ids?: readonly KindSimIdFilter[];
  /** Item fields kept when equal to the request parameter of the same name. */
  readonly equality?: readonly string[];
  /** Whether the items carry `Tags: [{Key, Value}]` (`Tag.N` filters apply, at most 20). */
  readonly tagged?: boolean;
  /** A filter of the action's own. */
  more?(p: KindSimParams): (item: Record<string, unknown>) => boolean;
}

/** One simulated Get* action: one item by id. */
export interface KindSimGet<I = unknown> {
  readonly action: string;
  /** The required id parameter. */
  readonly param: string;
  /**
   * The body for the id.
   * @throws KindResourceNotFoundError when the region holds no such resource
   */
  get(wire: KindWireLists, index: I, id: string): Record<string, unknown>;
}

/** How the simulator serves a kind's product from its wire lists. */
export interface KindSimulator<I = unknown> {
  /** Look-ups built once per region (one pass over the lists). */
  index(wire: KindWireLists): I;
  readonly lists: readonly KindSimList<I>[];
  readonly gets?: readonly KindSimGet<I>[];
}

/** The data path of one load-balancer kind (see the file comment). */
export interface LoadBalancerKindData {
  /** Coverage dataset, `WireRegion` key and fleet-directory folder of the kind's data (`nlb`). */
  readonly dataset: CoverageDataset;
  readonly product: KindProduct;
  /** The list names of the wire data, in file and storage order. */
  readonly lists: readonly string[];
  /** The list whose items are the kind's load balancers (counted in dump summaries). */
  readonly instanceList: string;
  /** The actions the crawl calls (RAM actions `<product.ramService>:<action>`; CALL-PLAN.md). */
  readonly actions: readonly string[];
  /**
   * Read the kind's data of one region.
   * @throws CollectError from `api` (the dataset is then `failed`)
   */
  crawl(api: KindCrawlApi): Promise<KindWireLists>;
  /**
   * The calls `crawl` makes for a region holding `wire` (action -> count; CALL-PLAN.md), pages of `maxResults`
   * items: the call-plan test compares a scan's calls with it.
   */
  plannedCalls(wire: KindWireLists, maxResults: number): Record<string, number>;
  /** The files of `regions/<regionId>/<dataset>/`, in list order; all required (absence is an ENOENT gap). */
  readonly files: readonly KindFile[];
  /** Cross-list references the fleet reader checks. */
  readonly references: readonly KindReference[];
  /** A mapper of one region's lists (`intern` shares one string per distinct id of the region). */
  mapper(accountId: string, regionId: string, intern: (s: string) => string): KindRegionMapper;
  readonly simulator: KindSimulator<unknown>;
}

/** A kind's wire data of a region (`WireRegion[dataset]`), `undefined` when not read. */
export function kindWireOf(region: object, data: LoadBalancerKindData): KindWireLists | undefined {
  return (region as Record<string, KindWireLists | undefined>)[data.dataset];
}

/**
 * Set (or, with `undefined`, remove) a kind's wire data on a region: its lists by name (`KindWireLists`, or the
 * kind's own interface of them, e.g. `WireNlbRegion`).
 */
export function setKindWire(region: object, data: LoadBalancerKindData, wire: object | undefined): void {
  const r = region as Record<string, object | undefined>;
  if (wire === undefined) delete r[data.dataset];
  else r[data.dataset] = wire;
}

/** Empty wire data of a kind: every list, empty (a region read with none of the kind's resources). */
export function emptyKindWire(data: LoadBalancerKindData): KindWireLists {
  return Object.fromEntries(data.lists.map((l) => [l, []]));
}
