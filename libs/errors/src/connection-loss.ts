/**
 * The shape of a lost or refused database connection, without importing any driver (so the CLI's error reporting,
 * loaded by every command, can recognise one without loading libs/store and `pg`).
 *
 * Sources: PostgreSQL "Appendix A. Error Codes" (class 08 connection exception, 57P01..57P03 admin_shutdown,
 * crash_shutdown, cannot_connect_now); node-postgres emits "Connection terminated unexpectedly" / "Connection
 * terminated" on a dead socket and "timeout exceeded when trying to connect" (pg/lib/client.js, pg-pool).
 */

/** SQLSTATEs of a lost or refused connection (class 08 and the shutdown codes of class 57). */
const CONNECTION_SQLSTATES = /^(08...|57P01|57P02|57P03)$/;

/** Node socket error codes of a refused or reset connection. */
const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTCONN']);

/**
 * Whether one error object (not its `cause`) has the code or message of a lost or refused database connection.
 * @param e any thrown value
 */
export function hasConnectionLossShape(e: unknown): boolean {
  if (!e || typeof e !== 'object') return false;
  const err = e as { code?: unknown; message?: unknown };
  if (typeof err.code === 'string' && (CONNECTION_SQLSTATES.test(err.code) || CONNECTION_ERRNOS.has(err.code))) return true;
  return typeof err.message === 'string' && /^Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(err.message);
}
