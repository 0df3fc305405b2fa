export * from '@app/queue';
