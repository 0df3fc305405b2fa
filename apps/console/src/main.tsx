/**
 * The web console: sign-in, then the pages over the REST API with the signed-in token. Routes are paths of this
 * origin (`/findings`, `/clusters/:id`, ...); the API serves index.html for them (apps/api console-static.ts) and
 * never for its own routes (/v1, /graphql, /metrics, /healthz, ...).
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { ApiFailure, api, setUnauthenticatedHandler } from './api';
import { SessionContext, type Session } from './app-context';
import { currentToken, signIn, signInFromFragment, signOut } from './session';
import type { Whoami } from './types';
import { Overview } from './pages/overview';
import { Findings } from './pages/findings';
import { Clusters, ClusterPage } from './pages/cluster';
import { WhatIf } from './pages/whatif';
import { ScanPage, Scans } from './pages/scans';
import { Reports } from './pages/reports';
import { Waivers } from './pages/waivers';
import { LoadBalancerPage } from './pages/load-balancer';
import { NlbPage } from './pages/nlb';
import { Tokens } from './pages/tokens';
import './styles.css';

/** The navigation: label, path, and the least role that sees it. */
const NAV: { label: string; href: string; admin?: boolean }[] = [
  { label: 'Overview', href: '/' },
  { label: 'Findings', href: '/findings' },
  { label: 'Clusters', href: '/clusters' },
  { label: 'What-if', href: '/whatif' },
  { label: 'Scans', href: '/scans' },
  { label: 'Reports', href: '/reports' },
  { label: 'Waivers', href: '/waivers' },
  { label: 'Tokens', href: '/tokens', admin: true },
];

function SignInForm({ onSignedIn, problem }: { onSignedIn: () => void; problem: string | undefined }) {
  const [token, setToken] = useState('');
  return (
    <main class="signin" id="main">
      <h1>ack-fleet-audit</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (token.trim() === '') return;
          signIn(token);
          onSignedIn();
        }}
      >
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          required
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
        />
        <p class="muted">
          Kept in this tab only (sessionStorage); sent as a bearer token to this API and nowhere else.
        </p>
        {problem && (
          <p class="error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}

function Shell({ session }: { session: Session }) {
  const { path } = useLocation();
  const { me } = session;
  const scope =
    me.accounts === null
      ? 'every account'
      : `account${me.accounts.length === 1 ? '' : 's'} ${me.accounts.join(', ')}`;
  return (
    <SessionContext.Provider value={session}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">ack-fleet-audit</span>
        <nav aria-label="Pages">
          <ul>
            {NAV.filter((n) => !n.admin || me.role === 'admin').map((n) => {
              const current =
                n.href === '/' ? path === '/' : path === n.href || path.startsWith(`${n.href}/`);
              return (
                <li key={n.href}>
                  <a href={n.href} aria-current={current ? 'page' : undefined}>
                    {n.label}
                  </a>
                </li>
              );
            })}
          </ul>
        </nav>
        <span class="who" data-role={me.role}>
          {me.tokenName ?? (me.kind === 'bootstrap' ? 'API_TOKEN' : me.tokenId)} · <strong>{me.role}</strong>{' '}
          · {scope}
          {me.teams ? ` · teams ${me.teams.join(', ')}` : ''}
        </span>
        <button type="button" class="link" onClick={session.signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Router>
          <Route path="/" component={Overview} />
          <Route path="/findings" component={Findings} />
          <Route path="/clusters" component={Clusters} />
          <Route path="/clusters/:id" component={ClusterPage} />
          <Route path="/load-balancers/:id" component={LoadBalancerPage} />
          <Route path="/nlbs/:id" component={NlbPage} />
          <Route path="/whatif" component={WhatIf} />
          <Route path="/scans" component={Scans} />
          <Route path="/scans/:id" component={ScanPage} />
          <Route path="/reports" component={Reports} />
          <Route path="/waivers" component={Waivers} />
          <Route path="/tokens" component={Tokens} />
          <Route default component={NotFound} />
        </Router>
      </main>
    </SessionContext.Provider>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        No console page here. <a href="/">Overview</a>
      </p>
    </section>
  );
}

function App() {
  const [me, setMe] = useState<Whoami | null>(null);
  const [problem, setProblem] = useState<string | undefined>();
  const [attempt, setAttempt] = useState(0);
  const [checking, setChecking] = useState(currentToken() !== null);
  const out = () => {
    signOut();
    setMe(null);
    setChecking(false);
  };
  useEffect(() => {
    setUnauthenticatedHandler(() => {
      signOut();
      setMe(null);
      setProblem('The token was refused (expired, revoked or wrong): sign in again.');
    });
  }, []);
  useEffect(() => {
    if (currentToken() === null) return;
    setChecking(true);
    api<Whoami>('/v1/whoami').then(
      (w) => {
        setMe(w);
        setProblem(undefined);
        setChecking(false);
      },
      (e: unknown) => {
        signOut();
        setProblem(e instanceof ApiFailure ? e.message : String(e));
        setChecking(false);
      },
    );
  }, [attempt]);
  if (me) return <Shell session={{ me, signOut: out }} />;
  if (checking) return <p role="status">Signing in…</p>;
  return <SignInForm problem={problem} onSignedIn={() => setAttempt((a) => a + 1)} />;
}

signInFromFragment();
render(
  <LocationProvider>
    <App />
  </LocationProvider>,
  document.getElementById('app')!,
);
