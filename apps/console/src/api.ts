/**
 * The console's only data path: the API's own REST routes (openapi.json) with the signed-in token. Errors come back
 * as the API's JSON error shape (`{statusCode, error, message, issues?}`) and are thrown as ApiFailure.
 */
import { currentToken } from './session';

/** One validation problem the API named (`path` like `body.steps.0.addNodes.count`). */
export interface ApiIssue {
  path: string;
  message: string;
}

/** A refused or failed API call: the HTTP status, the API's error code and message, and its validation problems. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: ApiIssue[] = [],
  ) {
    super(message);
  }
}

/** Called when the API answers 401 (token expired or revoked): the app signs out. */
let onUnauthenticated: () => void = () => undefined;

/** Set what happens on a 401 answer. */
export function setUnauthenticatedHandler(fn: () => void): void {
  onUnauthenticated = fn;
}

/**
 * Call the API.
 * @param path absolute path with query (`/v1/findings?severity=critical`)
 * @param init method and body; a string body is sent as given with `contentType`, anything else as JSON
 * @returns the response (body not read) when `raw` is true
 * @throws ApiFailure on any status >= 400 (401 also signs out), or status 0 when the API cannot be reached
 */
export async function apiFetch(
  path: string,
  init: { method?: string; body?: unknown; contentType?: string; signal?: AbortSignal } = {},
): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = currentToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    headers['Content-Type'] = init.contentType ?? 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? 'GET',
      headers,
      body,
      signal: init.signal,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiFailure(0, 'UNREACHABLE', `The API cannot be reached (${(e as Error).message})`);
  }
  if (res.status >= 400) {
    let parsed: {
      error?: string;
      message?: string;
      issues?: ApiIssue[];
      errors?: { message?: string; extensions?: { code?: string } }[];
    } = {};
    try {
      parsed = (await res.json()) as typeof parsed;
    } catch {
      // not JSON: keep the status alone
    }
    if (res.status === 401) onUnauthenticated();
    // REST errors carry error/message; GraphQL ones (400 on a query refused before execution) errors[0].
    const gqlError = parsed.errors?.[0];
    throw new ApiFailure(
      res.status,
      parsed.error ?? gqlError?.extensions?.code ?? `HTTP_${res.status}`,
      parsed.message ?? gqlError?.message ?? `HTTP ${res.status}`,
      parsed.issues ?? [],
    );
  }
  return res;
}

/** `apiFetch` and parse the JSON body. @throws ApiFailure as apiFetch */
export async function api<T>(path: string, init: Parameters<typeof apiFetch>[1] = {}): Promise<T> {
  const res = await apiFetch(path, init);
  return (await res.json()) as T;
}

/** A query string from the defined, non-empty values (`?a=1&b=x`), or ''. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Every page of a keyset-paged listing (`items`, `nextCursor`), at most `maxPages` pages. */
export async function allPages<T>(
  path: string,
  params: Record<string, string | number | undefined>,
  maxPages = 20,
): Promise<T[]> {
  const out: T[] = [];
  let after: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const page = await api<{ items: T[]; nextCursor: string | null }>(path + query({ ...params, after }));
    out.push(...page.items);
    if (!page.nextCursor) break;
    after = page.nextCursor;
  }
  return out;
}
