/**
 * Label and field selectors of Kubernetes list calls (apimachinery `labels.Parse`,
 * `fields.ParseSelector`), for the forms clients send:
 * labels `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`;
 * fields `path=v`, `path==v`, `path!=v` on the labels the resource supports.
 */
import type { K8sResource } from './k8s-resources.constants';
import { K8sStatusError } from './k8s-status.util';

/** A compiled selector over an object. */
export type ObjectPredicate = (obj: Record<string, unknown>) => boolean;

const badRequest = (message: string) => new K8sStatusError(400, 'BadRequest', message);

/** Split on commas that are not inside parentheses. */
function splitTerms(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((t) => t.trim()).filter((t) => t !== '');
}

function labelsOf(obj: Record<string, unknown>): Record<string, string> {
  const meta = obj['metadata'];
  const labels =
    typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)['labels'] : undefined;
  return typeof labels === 'object' && labels !== null ? (labels as Record<string, string>) : {};
}

/**
 * Compile a label selector.
 * @throws K8sStatusError 400 for a selector it cannot parse
 */
export function parseLabelSelector(selector: string): ObjectPredicate {
  const preds: ((labels: Record<string, string>) => boolean)[] = [];
  for (const term of splitTerms(selector)) {
    let m: RegExpExecArray | null;
    if ((m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term))) {
      const [, key, op, list] = m as unknown as [string, string, string, string];
      const values = new Set(list.split(',').map((v) => v.trim()));
      preds.push(
        op === 'in'
          ? (l) => l[key] !== undefined && values.has(l[key])
          : (l) => l[key] === undefined || !values.has(l[key]),
      );
    } else if ((m = /^([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)$/.exec(term))) {
      const [, key, op, value] = m as unknown as [string, string, string, string];
      preds.push(op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value);
    } else if ((m = /^!([\w./-]+)$/.exec(term))) {
      const key = m[1] as string;
      preds.push((l) => l[key] === undefined);
    } else if ((m = /^([\w./-]+)$/.exec(term))) {
      const key = m[1] as string;
      preds.push((l) => l[key] !== undefined);
    } else throw badRequest(`unable to parse requirement: ${term}`);
  }
  return (obj) => {
    const labels = labelsOf(obj);
    return preds.every((p) => p(labels));
  };
}

function valueAt(obj: Record<string, unknown>, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (typeof cur !== 'object' || cur === null) return '';
    cur = (cur as Record<string, unknown>)[part];
  }
  if (cur === undefined || cur === null) return '';
  return typeof cur === 'object' ? JSON.stringify(cur) : String(cur);
}

/**
 * Compile a field selector for a resource.
 * @throws K8sStatusError 400 `field label not supported` for a field the real API server rejects too
 */
export function parseFieldSelector(selector: string, resource: K8sResource): ObjectPredicate {
  const supported = new Set(['metadata.name', 'metadata.namespace', ...resource.fieldLabels]);
  const preds: ObjectPredicate[] = [];
  for (const term of splitTerms(selector)) {
    const m = /^([\w.]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!m) throw badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    const [, field, op, value] = m as unknown as [string, string, string, string];
    if (!supported.has(field)) throw badRequest(`field label not supported: ${field}`);
    preds.push(op === '!=' ? (o) => valueAt(o, field) !== value : (o) => valueAt(o, field) === value);
  }
  return (obj) => preds.every((p) => p(obj));
}
