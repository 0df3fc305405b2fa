export * from '@app/api';
