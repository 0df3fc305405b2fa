/**
 * The signed-in token: kept in sessionStorage (this tab only, gone when it closes), never in a URL the server sees.
 * `demo` prints a link whose fragment (`#token=...`) carries the token: fragments are never sent to the server;
 * the page reads it once and removes it from the address bar and the history entry (history.replaceState).
 */

/** sessionStorage key of the token. */
const KEY = 'fleet-audit.token';

/** The token of this tab, or null when signed out. */
export function currentToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

/** Keep `token` for this tab. */
export function signIn(token: string): void {
  sessionStorage.setItem(KEY, token.trim());
}

/** Forget the token of this tab. */
export function signOut(): void {
  sessionStorage.removeItem(KEY);
}

/**
 * Sign in from a `#token=<token>` fragment, if the address has one, and clear the fragment at once (the address bar,
 * the history entry) so the token is neither bookmarked, shared nor kept in the history.
 * @returns whether a token was taken from the fragment
 */
export function signInFromFragment(): boolean {
  const hash = window.location.hash;
  if (!hash.startsWith('#')) return false;
  const params = new URLSearchParams(hash.slice(1));
  const token = params.get('token');
  if (token === null) return false;
  history.replaceState(history.state, '', window.location.pathname + window.location.search);
  if (token.trim() === '') return false;
  signIn(token);
  return true;
}
