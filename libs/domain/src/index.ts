/** Public entry of libs/domain: pure types and models (no I/O, no framework). */
export * from './snapshot.types';
export * from './finding.types';
export * from './wire/wire.schemas';
export * from './wire/wire-fleet.types';
export * from './wire/wire-mappers';
export * from './ccm/index';
