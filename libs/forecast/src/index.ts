/**
 * Public entry of libs/forecast: capacity planning over FleetSnapshots and quota samples (pure: no I/O, no
 * framework, `now` passed in). Trends (time to exhaustion), structural headroom from the CCM model, what-if
 * scenarios and the CCM convergence estimate. Models and sources: libs/forecast/README.md.
 */
export * from './trend.model';
export * from './trends';
export * from './headroom.model';
export * from './scenario.schema';
export { ScenarioApplier, type AppliedChange } from './scenario.apply';
export { findCluster, locateCluster, type ClusterLocation } from './scenario.location';
export * from './whatif.runner';
export * from './convergence.model';
export * from './backtest.util';
export * from './manifest-plan';
export * from './cluster-review.model';
export * from './quota-plan';
