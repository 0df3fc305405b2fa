/** Public entry of apps/fleet-sim (`@app/fleet-sim`): start a fleet simulator in-process. */
export {
  startSimulator,
  simulatorReadyLine,
  DEFAULT_SIM_ACCESS_KEY_ID,
  DEFAULT_SIM_ACCESS_KEY_SECRET,
  type SimulatorOptions,
  type RunningSimulator,
} from './sim.server';
export { SCAN_CONFIG_FILE, type SimScanConfig } from './scan-config.writer';
export { kubernetesServerUrl } from './kubernetes/kubeconfig.util';
