export * from '@app/audit/scan';
