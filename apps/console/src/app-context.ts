/** Who is signed in (GET /v1/whoami), for every page: the role decides which write actions are shown. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Role, Whoami } from './types';

/** The signed-in token's identity and the sign-out action. */
export interface Session {
  me: Whoami;
  signOut: () => void;
}

export const SessionContext = createContext<Session | null>(null);

/** The session of the signed-in page. @throws Error outside the signed-in app (a programming error) */
export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside the signed-in app');
  return s;
}

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** Whether the signed-in role is at least `role` (the API enforces the same rule; this only hides what it would refuse). */
export function useCan(role: Role): boolean {
  return RANK[useSession().me.role] >= RANK[role];
}
