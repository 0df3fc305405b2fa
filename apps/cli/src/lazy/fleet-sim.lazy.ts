export * from '@app/fleet-sim';
