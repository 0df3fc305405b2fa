/** Throwaway PostgreSQL servers of the fault suite (shared with `npm run chaos`: bench/chaos/private-servers.ts). */
export { startPrivatePostgres, type PrivatePostgres } from '../../bench/chaos/private-servers';
