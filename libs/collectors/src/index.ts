/** Public entry of libs/collectors: readers of fleets (offline directories and live APIs). */
export * from './offline/fleet-directory.reader';
export * from './offline/fleet-directory.loader';
export * from './live/scan-config';
export * from './offline/fleet-directory.writer';
export * from './generate/fleet.generator';
