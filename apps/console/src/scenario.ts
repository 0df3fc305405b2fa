/** What-if scenarios as the console writes them (the file format of `fleet-audit forecast whatif`). */

/**
 * A scenario as YAML: block style for the document, flow mappings with JSON scalars for the steps. JSON scalars are
 * valid YAML 1.2 flow scalars, so the text reads back to the same object with any YAML 1.2 parser, and the bundle
 * needs no YAML library.
 * @param name the scenario name
 * @param steps one `{ <kind>: { ...arguments } }` object per step
 */
export function scenarioYaml(name: string, steps: Record<string, unknown>[]): string {
  const flow = (v: unknown): string =>
    Array.isArray(v)
      ? `[${v.map(flow).join(', ')}]`
      : v !== null && typeof v === 'object'
        ? `{ ${Object.entries(v)
            .map(([k, x]) => `${JSON.stringify(k)}: ${flow(x)}`)
            .join(', ')} }`
        : JSON.stringify(v);
  const lines = ['apiVersion: fleet-audit/v1', 'kind: Scenario', `name: ${JSON.stringify(name)}`, 'steps:'];
  for (const step of steps)
    for (const [kind, args] of Object.entries(step)) lines.push(`  - ${kind}: ${flow(args)}`);
  return `${lines.join('\n')}\n`;
}
