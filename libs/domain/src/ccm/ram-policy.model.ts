import { globMatches } from '../glob.util';
import type { RamStatement } from '../snapshot.types';

/**
 * A small evaluator of RAM policy statements for "is this action allowed?".
 *
 * RAM policy grammar (Alibaba Cloud RAM "Policy elements" / "Policy structure and syntax"): a statement
 * has `Effect` (`Allow` | `Deny`), `Action` or `NotAction` (strings with wildcards `*` = any run of
 * characters, `?` = one character; `service:Api`), `Resource`, optional `Condition`. An explicit Deny
 * beats any Allow; with no matching Allow the request is implicitly denied.
 *
 * Simplifications (documented, conservative for a permission-gap audit):
 * - Resource scoping is not modelled: a statement counts for the action whatever its `Resource`
 *   (CCM acts on many resources; a resource-scoped Allow is read as an Allow).
 * - Conditions are not modelled (the normalised `RamStatement` carries none).
 * - Action names match case-insensitively (RAM action names are not case-sensitive).
 */

/** Outcome of evaluating one action against a set of statements. */
export type RamDecision = 'allow' | 'explicit-deny' | 'implicit-deny';

/**
 * Whether a RAM action pattern (with `*` / `?`) matches an action, case-insensitively.
 * `*` alone matches every action; `slb:Describe*` matches `slb:DescribeLoadBalancers`. Matched without a RegExp
 * (glob.util.ts): policy documents come from the scanned accounts, and a many-star pattern on a backtracking
 * engine would stall the analysis.
 */
export function ramActionMatches(pattern: string, action: string): boolean {
  if (pattern === '*') return true;
  return globMatches(pattern, action, { caseInsensitive: true });
}

/** Whether a statement's Action/NotAction covers the action. */
function statementCovers(statement: RamStatement, action: string): boolean {
  if (statement.actions.length > 0) return statement.actions.some((p) => ramActionMatches(p, action));
  if (statement.notActions.length > 0) return !statement.notActions.some((p) => ramActionMatches(p, action));
  return false;
}

/**
 * Evaluates one action against statements (of all the policies attached to a principal).
 *
 * @returns `explicit-deny` if any covering Deny, else `allow` if any covering Allow, else `implicit-deny`
 */
export function evaluateRamAction(statements: readonly RamStatement[], action: string): RamDecision {
  let allowed = false;
  for (const s of statements) {
    if (!statementCovers(s, action)) continue;
    if (s.effect === 'Deny') return 'explicit-deny';
    if (s.effect === 'Allow') allowed = true;
  }
  return allowed ? 'allow' : 'implicit-deny';
}

/**
 * The actions not allowed by the statements, in input order, with the decision for each.
 */
export function missingRamActions(
  statements: readonly RamStatement[],
  actions: readonly string[],
): { action: string; decision: Exclude<RamDecision, 'allow'> }[] {
  const out: { action: string; decision: Exclude<RamDecision, 'allow'> }[] = [];
  for (const action of actions) {
    const decision = evaluateRamAction(statements, action);
    if (decision !== 'allow') out.push({ action, decision });
  }
  return out;
}
