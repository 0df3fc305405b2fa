export * from '@app/telemetry';
