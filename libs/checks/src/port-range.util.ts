import type { PortRange } from '@app/domain';

/** Whether two inclusive port ranges overlap. */
export function rangesOverlap(a: PortRange, b: PortRange): boolean {
  return a.from <= b.to && b.from <= a.to;
}

/** `30000-32767`. */
export function rangeText(r: PortRange): string {
  return `${r.from}-${r.to}`;
}
