export * from '@app/reports';
