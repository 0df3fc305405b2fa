import { mapWireFleet, type FleetSnapshot } from '@app/domain';
import { readFleetDirectory } from './fleet-directory.reader';

/**
 * Load a fleet directory (`../shared/fleet-format.md`) as a FleetSnapshot: read, validate, map.
 * @throws FleetValidationError naming file, JSON path and expectation; nothing is half-loaded.
 */
export function loadFleetDirectory(root: string): FleetSnapshot {
  return mapWireFleet(readFleetDirectory(root));
}
