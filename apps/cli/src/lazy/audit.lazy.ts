export * from '@app/audit';
