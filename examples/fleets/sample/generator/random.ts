/**
 * Deterministic randomness of the sample fleet generator (mulberry32) and the id formats drawn from it.
 *
 * Every draw advances one shared state, so the order of the calls is part of the output: re-ordering two
 * draws changes ids further down. The catalogue additions draw from their own stream (`withStream`) so
 * that the older ids stayed as they were when they were added.
 */

/** Lower-case letters and digits: the alphabet of Alibaba Cloud id suffixes. */
export const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** Lower-case hex digits (cluster ids, UIDs, hashes). */
export const HEX = '0123456789abcdef';
/** Alphabet of Kubernetes ReplicaSet / Pod name suffixes (`k8s.io/apimachinery` `rand.SafeEncodeString`). */
export const KHASH = 'bcdfghjklmnpqrstvwxz2456789';

/** The two regions of the sample, with their id prefix, zones and the first two octets of public IPs. */
export const REGIONS = {
  'cn-hangzhou': { p: 'bp1', zones: ['cn-hangzhou-h', 'cn-hangzhou-i', 'cn-hangzhou-j'], pub: ['47.98', '120.55', '121.41'] },
  'cn-beijing': { p: '2ze', zones: ['cn-beijing-g', 'cn-beijing-h', 'cn-beijing-k'], pub: ['39.105', '47.94', '123.57'] },
} as const;

/** A region id of the sample (`cn-hangzhou` | `cn-beijing`). */
export type RegionId = keyof typeof REGIONS;

/** Cloud id kinds and the total length of their suffix (region prefix included), as real ids have it. */
const LEN = { lb: 20, i: 20, vpc: 21, vsw: 21, rsp: 13, eni: 20, sg: 20, asg: 20 } as const;

/** A kind of cloud id (`lb-...`, `i-...`, `vpc-...`, ...). */
export type CloudIdKind = keyof typeof LEN;

/** Seed of the first stream (fleet built in 2026-11-22). */
export const MAIN_SEED = 0x20261122;

/**
 * The generator's PRNG and id formats. Methods are bound arrow functions so scenario code can destructure
 * them (`const { int, uuid } = random`).
 */
export class SampleRandom {
  private state: number;

  /** @param seed the initial 32-bit mulberry32 state */
  constructor(seed: number = MAIN_SEED) {
    this.state = seed;
  }

  /** Next float in [0, 1) (mulberry32, public-domain algorithm). */
  readonly rand = (): number => {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  /** An integer in [lo, hi], both inclusive. */
  readonly int = (lo: number, hi: number): number => lo + Math.floor(this.rand() * (hi - lo + 1));

  /** `n` characters drawn from `set`. */
  readonly chars = (set: string, n: number): string => Array.from({ length: n }, () => set[Math.floor(this.rand() * set.length)]).join('');

  /** A random (version 4 shaped) UUID, lower case. */
  readonly uuid = (): string => {
    const h = this.chars(HEX, 32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[this.int(0, 3)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  };

  /** An Alibaba Cloud API RequestId (upper-case UUID). */
  readonly requestId = (): string => this.uuid().toUpperCase();

  /** An ECS ENI MAC address (`00:16:3e:..`, Alibaba Cloud's OUI). */
  readonly mac = (): string => `00:16:3e:${this.chars(HEX, 2)}:${this.chars(HEX, 2)}:${this.chars(HEX, 2)}`;

  /** A cloud id `<kind>-<region prefix><alnum>` (e.g. `lb-bp1...`, `vsw-2ze...`). */
  readonly cloudId = (kind: CloudIdKind, region: RegionId): string => `${kind}-${REGIONS[region].p}${this.chars(ALNUM, LEN[kind] - 3)}`;

  /** An ACK cluster id: `c` + 32 hex digits. */
  readonly clusterId = (): string => `c${this.chars(HEX, 32)}`;

  /** A public IPv4 address of the region's ranges. */
  readonly publicIp = (region: RegionId): string => `${REGIONS[region].pub[this.int(0, 2)]}.${this.int(1, 254)}.${this.int(1, 254)}`;

  /**
   * Runs `body` on another stream (state `seed`), then restores the current state: ids drawn before and
   * after `body` are the ones they would be without it.
   */
  withStream<T>(seed: number, body: () => T): T {
    const saved = this.state;
    this.state = seed;
    try {
      return body();
    } finally {
      this.state = saved;
    }
  }
}
