export * from '@app/worker';
