/** Dates and the time formats of the different APIs the sample fleet imitates. */

/** A `Date` from an ISO 8601 string. */
export const D = (s: string): Date => new Date(s);

/** `d` plus `seconds` (may be negative). */
export const plus = (d: Date, seconds: number): Date => new Date(d.getTime() + seconds * 1000);

/** RFC 3339 in UTC without milliseconds (Kubernetes, SLB CreateTime, RAM dates). */
export const iso = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** ECS DescribeInstances times: minutes only (`2017-12-10T04:04Z`). */
export const ecsTime = (d: Date): string => `${d.toISOString().slice(0, 16)}Z`;

/** CS (ACK) times: local +08:00 offset (`2024-06-03T10:14:22+08:00`). */
export const csTime = (d: Date): string => `${new Date(d.getTime() + 8 * 3600e3).toISOString().slice(0, 19)}+08:00`;

/** Snapshot time of the sample (events are a few hours to days older). */
export const NOW = D('2026-11-21T09:30:00Z');
