export * from '@app/collectors';
