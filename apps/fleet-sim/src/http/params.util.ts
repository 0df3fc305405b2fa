/**
 * Request parameters of the Alibaba Cloud RPC APIs: the SDKs flatten nested request fields into
 * `X.N.Y` keys (`Tag.1.Key`, `InstanceId.2`, `Dimensions.1.Value`; see
 * `research/alibaba-cloud-api.md` section 1.3, `OpenApiUtil.query()`), so the simulator merges the
 * query and the urlencoded body and un-flattens them back into objects and arrays.
 */

/** A value of an un-flattened parameter tree: a string leaf, an array (from `.N.` keys) or an object. */
export type ParamValue = string | ParamValue[] | { [key: string]: ParamValue };

function isPlainObject(v: unknown): v is Record<string, ParamValue> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function arrayify(node: ParamValue): ParamValue {
  if (!isPlainObject(node)) return node;
  const keys = Object.keys(node);
  for (const k of keys) node[k] = arrayify(node[k] as ParamValue);
  if (keys.length > 0 && keys.every((k) => /^[1-9]\d*$/.test(k))) {
    return keys
      .map(Number)
      .sort((a, b) => a - b)
      .map((i) => node[String(i)] as ParamValue);
  }
  return node;
}

/**
 * Un-flatten `A.1.B=x` style keys: numeric segments (1-based) become arrays ordered by index,
 * other segments nested objects. A plain key and a deeper key under the same name: the deeper
 * structure wins.
 */
export function unflattenParams(flat: Record<string, string>): Record<string, ParamValue> {
  const root: Record<string, ParamValue> = {};
  for (const [key, value] of Object.entries(flat)) {
    const parts = key.split('.');
    let node: Record<string, ParamValue> = root;
    for (let i = 0; i < parts.length - 1; i++) {
      const p = parts[i] as string;
      let next = node[p];
      if (!isPlainObject(next)) {
        next = {};
        node[p] = next;
      }
      node = next;
    }
    const last = parts[parts.length - 1] as string;
    if (!isPlainObject(node[last])) node[last] = value;
  }
  const out = arrayify(root);
  return isPlainObject(out) ? out : {};
}

/** One `{Key, Value}` pair as sent in `Tag.N.*` / `Dimensions.N.*`. */
export interface KeyValueParam {
  key: string;
  value: string | undefined;
}

/**
 * Typed access to an RPC request's merged parameters (query + form body). Parse errors are
 * reported through the `invalid` callback so the caller can raise the product's error shape.
 */
export class RpcParams {
  private treeCache: Record<string, ParamValue> | undefined;

  /**
   * @param flat merged flat parameters (query then form body; the body wins on a clash)
   * @param invalid builds the error to throw for an invalid parameter (name, reason)
   */
  constructor(
    readonly flat: Readonly<Record<string, string>>,
    private readonly invalid: (name: string, reason: string) => Error,
    private readonly missing: (name: string) => Error,
  ) {}

  /** The un-flattened parameter tree. */
  get tree(): Record<string, ParamValue> {
    this.treeCache ??= unflattenParams({ ...this.flat });
    return this.treeCache;
  }

  /** A string parameter; empty strings count as absent. */
  str(name: string): string | undefined {
    const v = this.flat[name];
    return v === undefined || v === '' ? undefined : v;
  }

  /** A required string parameter. @throws the `missing` error when absent */
  required(name: string): string {
    const v = this.str(name);
    if (v === undefined) throw this.missing(name);
    return v;
  }

  /** An integer parameter. @throws the `invalid` error when not an integer */
  int(name: string): number | undefined {
    const v = this.str(name);
    if (v === undefined) return undefined;
    if (!/^-?\d+$/.test(v)) throw this.invalid(name, `expected an integer, got "${v}"`);
    return Number(v);
  }

  /** A boolean parameter (`true`/`false`, case-insensitive). */
  bool(name: string): boolean | undefined {
    const v = this.str(name);
    if (v === undefined) return undefined;
    if (/^true$/i.test(v)) return true;
    if (/^false$/i.test(v)) return false;
    throw this.invalid(name, `expected true or false, got "${v}"`);
  }

  /** A JSON-array-of-strings parameter such as ECS `InstanceIds` (`["i-1","i-2"]`). */
  jsonStringArray(name: string): string[] | undefined {
    const v = this.str(name);
    if (v === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      throw this.invalid(name, 'expected a JSON array of strings');
    }
    if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === 'string'))
      throw this.invalid(name, 'expected a JSON array of strings');
    return parsed;
  }

  /** A repeated `Name.N` list (`InstanceId.1`, `InstanceId.2`, ...). */
  repeated(name: string): string[] {
    const v = this.tree[name];
    if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
    return typeof v === 'string' ? [v] : [];
  }

  /** A repeated `Name.N.Key` / `Name.N.Value` list (`Tag`, `Dimensions`). */
  keyValues(name: string): KeyValueParam[] {
    const v = this.tree[name];
    if (!Array.isArray(v)) return [];
    const out: KeyValueParam[] = [];
    for (const item of v) {
      if (!isPlainObject(item)) continue;
      const key = item['Key'];
      const value = item['Value'];
      if (typeof key === 'string') out.push({ key, value: typeof value === 'string' ? value : undefined });
    }
    return out;
  }
}
