export * from '@app/forecast';
