/** The API answers the console reads (the fields it uses; apps/api/openapi.json has the whole shapes). */

export type Role = 'viewer' | 'operator' | 'admin';
export type Severity = 'info' | 'warning' | 'critical';

/** GET /v1/whoami */
export interface Whoami {
  role: Role;
  kind: 'token' | 'bootstrap';
  tokenId: string | null;
  tokenName: string | null;
  accounts: string[] | null;
  teams: string[] | null;
}

/** A resource a finding or quota is about. */
export interface ResourceRef {
  kind: string;
  id: string;
  accountId: string;
  regionId: string;
  clusterId?: string | null;
  clusterName?: string | null;
  team?: string | null;
  namespace?: string | null;
  name?: string | null;
}

/** GET /v1/findings item */
export interface Finding {
  checkId: string;
  severity: Severity;
  resource: ResourceRef;
  message: string;
  remediation: string;
  source: string;
  fingerprint: string;
  used: number | null;
  limit: number | null;
  ratio: number | null;
  firstSeenAt: string | null;
  lastSeenAt: string | null;
  status: string | null;
  waiver: { id: string; owner: string; reason: string; expiresAt: string } | null;
}

/** A keyset page. */
export interface Page<T> {
  items: T[];
  total: number | null;
  limit: number;
  nextCursor: string | null;
  scanId?: string;
}

/** GET /v1/quotas item */
export interface Quota {
  checkId: string;
  resource: ResourceRef;
  used: number;
  limit: number;
  ratio: number;
}

/** Coverage of one dataset of a scan. */
export interface CoverageEntry {
  /** The dataset (cloud or Kubernetes API read): quotas, addons, services, ... */
  api: string;
  /** ok, absent (not read: no data) or failed. */
  status: string;
  message?: string | null;
  accountId?: string | null;
  regionId?: string | null;
  clusterId?: string | null;
}

/** GET /v1/scans item / GET /v1/scans/:id */
export interface Scan {
  id: string;
  status: string;
  source: string;
  fleetName: string | null;
  startedAt: string;
  finishedAt: string | null;
  error: string | null;
  /** Counts within the token's scope; a scoped token's summary leaves out the fleet-wide ones. */
  summary: {
    findings: number;
    bySeverity?: Record<Severity, number>;
    byCheck?: Record<string, number>;
    accounts?: number;
    clusters?: number;
    coverage?: { ok: number; absent: number; failed: number };
  } | null;
  coverage?: CoverageEntry[];
}

/** GET /v1/scans/:id/diff */
export interface ScanDiffPage {
  counts?: Record<string, number>;
  items: { change: string; checkId: string; severity?: Severity; resource: ResourceRef; message?: string }[];
  nextCursor: string | null;
  [k: string]: unknown;
}

/** GET /v1/clusters item */
export interface Cluster {
  clusterId: string;
  accountId: string;
  regionId: string;
  name: string;
  clusterType: string;
  currentVersion: string | null;
  ccmVersion: string | null;
  networkPlugin: string;
  nodeCount: number | null;
  serviceCount: number | null;
  team?: string | null;
}

/** Quantiles of a forecast. */
export interface Quantiles<T> {
  p10: T | null;
  p50: T | null;
  p90: T | null;
}

/** GET /v1/forecasts/trends item */
export interface Trend {
  checkId: string;
  resource: ResourceRef;
  status: 'ok' | 'insufficient_data' | 'flat' | 'decreasing' | 'exhausted';
  used: number;
  limit: number;
  slopePerDay: number | null;
  samples: number;
  secondsToExhaustion: Quantiles<number>;
  exhaustsAt: Quantiles<string>;
}

/** One headroom answer (how many more before a quota breaks), with what limits it. */
export interface HeadroomFigure {
  headroom: number | null;
  limitedBy: { checkId: string; resource: ResourceRef } | null;
}

/** GET /v1/forecasts/headroom item */
export interface Headroom {
  clusterId: string;
  clusterName: string;
  team?: string | null;
  nodes: HeadroomFigure | null;
  clusterModeServices: HeadroomFigure | null;
  localServices: HeadroomFigure | null;
  nlbClusterModeServices: HeadroomFigure | null;
  nlbLocalServices: HeadroomFigure | null;
  nlbNotPlanned?: { reason: string; message: string } | null;
  secondsToExhaustion?: number | null;
}

/** GET /v1/load-balancers item */
export interface LoadBalancer {
  loadBalancerId: string;
  accountId: string;
  regionId: string;
  name: string | null;
  addressType: string | null;
  address: string | null;
  spec: string | null;
  status: string | null;
  owner: string | null;
  listeners: {
    port: number;
    protocol: string;
    description: string | null;
    forwardPort: number | null;
    vServerGroupId: string | null;
  }[];
  listenerCount: number;
  vServerGroupCount: number;
  backendEntries: number;
  distinctBackends: number;
  serviceCount: number;
  clusterIds: string[];
}

/** GET /v1/waivers item */
export interface Waiver {
  id: string;
  checkId: string;
  accountId: string;
  regionId: string | null;
  clusterId: string | null;
  resource: string;
  owner: string;
  reason: string;
  category: string;
  ticket: string | null;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  state: string;
}

/** GET /v1/reports item */
export interface Report {
  id: string;
  status: string;
  periodStart?: string | null;
  periodEnd?: string | null;
  createdAt?: string;
  accounts?: string | string[] | null;
  summary?: Record<string, unknown> | null;
  error?: string | null;
  [k: string]: unknown;
}

/** GET /v1/tokens item */
export interface Token {
  id: string;
  name: string;
  role: Role;
  accounts: string[] | null;
  teams: string[] | null;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  createdBy: string;
}

/** One quota change of a what-if step. */
export interface QuotaChange {
  checkId: string;
  resource: ResourceRef;
  before: { used: number; limit: number; ratio: number };
  after: { used: number; limit: number; ratio: number };
}

/** POST /v1/forecasts/whatif */
export interface WhatIfResult {
  scanId: string;
  scenario: string;
  steps: {
    name: string;
    quotas: QuotaChange[];
    firstBreach: QuotaChange | null;
    findings: { appeared: Finding[]; resolved: Finding[]; severityChanged: unknown[] };
  }[];
  convergence: {
    services: number;
    calls: number;
    wallSeconds: { p50: number; p95: number };
    boundBy: string;
  } | null;
}
