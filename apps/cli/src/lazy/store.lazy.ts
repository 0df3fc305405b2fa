export * from '@app/store';
