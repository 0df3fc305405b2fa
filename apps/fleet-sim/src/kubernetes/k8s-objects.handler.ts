/**
 * List and get of the simulated Kubernetes objects.
 *
 * Lists follow the API server's contract: `{apiVersion, kind: <Kind>List, metadata:
 * {resourceVersion, continue?, remainingItemCount?}, items}`, every item with apiVersion/kind;
 * `limit` (0 = no limit) and `continue` paging where the continue token is opaque (base64url
 * of the next offset, the list's resourceVersion and the query it belongs to); a token of
 * another query is 400 BadRequest, one of another resourceVersion 410 Expired (the fleet is
 * static, so that happens only across simulator restarts). `labelSelector` and
 * `fieldSelector` filter before paging. `watch` is not supported (400).
 */
import { RESOURCES_BY_GROUP_VERSION, type K8sResource } from './k8s-resources.constants';
import type { K8sObjectStore, StoredObject } from './k8s-object.store';
import { parseFieldSelector, parseLabelSelector } from './k8s-selector.util';
import { K8sStatusError } from './k8s-status.util';

/** A parsed list/get request. */
export interface K8sObjectRequest {
  resource: K8sResource;
  /** Namespace from the path (`undefined`: cluster scope / all namespaces). */
  namespace?: string;
  /** Object name for a get. */
  name?: string;
  query: URLSearchParams;
}

/** Message of a 410 `Expired` answer to a stale `continue` token (kube-apiserver's wording). */
export const EXPIRED_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';

function continueScope(req: K8sObjectRequest): string {
  return JSON.stringify([
    req.resource.name,
    req.namespace ?? '',
    req.query.get('labelSelector') ?? '',
    req.query.get('fieldSelector') ?? '',
  ]);
}

function encodeContinue(offset: number, rv: string, scope: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, o: offset, q: scope })).toString('base64url');
}

function decodeContinue(token: string, rv: string, scope: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new K8sStatusError(400, 'BadRequest', 'continue key is not valid: not a simulator continue token');
  }
  const t = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as {
    rv?: unknown;
    o?: unknown;
    q?: unknown;
  };
  if (typeof t.o !== 'number' || !Number.isInteger(t.o) || t.o < 0 || t.q !== scope)
    throw new K8sStatusError(
      400,
      'BadRequest',
      'continue key is not valid: it belongs to another list request',
    );
  if (t.rv !== rv) throw new K8sStatusError(410, 'Expired', EXPIRED_CONTINUE_MESSAGE);
  return t.o;
}

/** Resolve `group/version` + plural name to a served resource. */
export function findResource(groupVersion: string, plural: string): K8sResource | undefined {
  return RESOURCES_BY_GROUP_VERSION.get(groupVersion)?.get(plural);
}

/**
 * Answer a list: the JSON text of the `<Kind>List`.
 * @throws K8sStatusError 400 for bad `limit`, selectors or continue tokens; 410 for a stale continue token
 */
export function listObjects(store: K8sObjectStore, req: K8sObjectRequest): string {
  const q = req.query;
  if (q.get('watch') === 'true' || q.get('watch') === '1')
    throw new K8sStatusError(400, 'BadRequest', 'watch is not supported by the fleet simulator');
  const limitRaw = q.get('limit');
  let limit = 0;
  if (limitRaw !== null && limitRaw !== '') {
    if (!/^\d+$/.test(limitRaw)) throw new K8sStatusError(400, 'BadRequest', `invalid limit: ${limitRaw}`);
    limit = Number(limitRaw);
  }
  const index = store.index(req.resource);
  let items: StoredObject[] =
    req.namespace === undefined ? index.all : (index.byNamespace.get(req.namespace) ?? []);
  const labelSelector = q.get('labelSelector');
  const fieldSelector = q.get('fieldSelector');
  if (labelSelector) {
    const pred = parseLabelSelector(labelSelector);
    items = items.filter((o) => pred(o.obj));
  }
  if (fieldSelector) {
    const pred = parseFieldSelector(fieldSelector, req.resource);
    items = items.filter((o) => pred(o.obj));
  }
  const scope = continueScope(req);
  const cont = q.get('continue');
  const start = cont ? decodeContinue(cont, store.resourceVersion, scope) : 0;
  const end = limit > 0 ? Math.min(items.length, start + limit) : items.length;
  const page = items.slice(start, end);
  const metadata: Record<string, unknown> = { resourceVersion: store.resourceVersion };
  if (end < items.length) {
    metadata['continue'] = encodeContinue(end, store.resourceVersion, scope);
    metadata['remainingItemCount'] = items.length - end;
  }
  const apiVersion = req.resource.group === '' ? 'v1' : `${req.resource.group}/v1`;
  const head = JSON.stringify({ apiVersion, kind: `${req.resource.kind}List`, metadata });
  return `${head.slice(0, -1)},"items":[${page.map((o) => store.json(o)).join(',')}]}`;
}

/**
 * Answer a get: the object's JSON.
 * @throws K8sStatusError 404 NotFound with the standard message
 */
export function getObject(store: K8sObjectStore, req: K8sObjectRequest): string {
  const found = store.index(req.resource).byKey.get(`${req.namespace ?? ''}/${req.name ?? ''}`);
  if (!found)
    throw new K8sStatusError(
      404,
      'NotFound',
      `${req.resource.name}${req.resource.group ? `.${req.resource.group}` : ''} "${req.name ?? ''}" not found`,
      {
        name: req.name,
        ...(req.resource.group ? { group: req.resource.group } : {}),
        kind: req.resource.name,
      },
    );
  return store.json(found);
}
