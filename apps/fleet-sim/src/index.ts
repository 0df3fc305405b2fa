/** Public entry of apps/fleet-sim (`@app/fleet-sim`): start a fleet simulator in-process. */
export {
  startSimulator,
  simulatorReadyLine,
  DEFAULT_SIM_ACCESS_KEY_ID,
  DEFAULT_SIM_ACCESS_KEY_SECRET,
  DEFAULT_SLOW_DELAY_MS,
  SimulatorOptionsError,
  type SimulatorOptions,
  type RunningSimulator,
} from './sim.server';
export { SCAN_CONFIG_FILE, UNLIMITED_SIM_BUDGET, type SimScanConfig } from './scan-config.writer';
export { simulatorOptionsFromFlags, type SimulatorTrafficFlags } from './sim-flags.util';
export { kubernetesServerUrl } from './kubernetes/kubeconfig.util';
export { FLEET_AUDIT_ROLE_NAME, STS_DURATION_SECONDS } from './alibaba/sts.handler';
export type { ThrottlingStatus } from './alibaba/alibaba.gateway';
export { DEFAULT_TIMEOUT_HOLD_MS } from './http/response-writer.service';
export type { SimStats } from './traffic/call-stats.service';
export {
  FAULT_KINDS,
  FaultSpecError,
  parseFaultSpec,
  validateFaultRates,
  type FaultKind,
  type FaultRates,
} from './traffic/fault-spec.util';
export { QpsLimitsError, RateLimiter, validateQpsLimits, type QpsLimits } from './traffic/rate-limiter.service';
export { FAULT_RETRY_AFTER_MS } from './traffic/traffic-policy.service';
