/**
 * The page a browser gets on `GET /graphql`: a self-contained HTML page of this service (no script, no stylesheet
 * or font from a CDN), so it renders on a machine without internet access. Apollo's own landing pages (Sandbox,
 * embedded or not) load their application from Apollo's CDN and show "Apollo Sandbox cannot be loaded; it appears
 * that you might be offline" there. The page says how to query the endpoint (POST, bearer token, an example with
 * curl); with `sandbox` it also links to Apollo Sandbox on the web with this endpoint filled in, for browsers that
 * do reach it. Served through Apollo Server's documented plugin hook `renderLandingPage` (serverWillStart).
 */
import type { ApolloServerPlugin } from '@apollo/server';

/** What the landing page shows. */
export interface LandingPageOptions {
  /** Add a link to Apollo Sandbox on the web (studio.apollographql.com, needs internet access). */
  sandbox: boolean;
}

/** Escape text for HTML element content and attribute values. */
function html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

const EXAMPLE_QUERY = '{ scans(first: 1) { nodes { id status startedAt } } }';

/**
 * The landing page's HTML (a whole document, UTF-8, about 2 KB).
 * @param opts.sandbox whether to link to Apollo Sandbox on the web
 */
export function graphqlLandingPageHtml(opts: LandingPageOptions): string {
  const curl = `curl -H "Authorization: Bearer $API_TOKEN" -H 'content-type: application/json' \\\n  -d '${JSON.stringify({ query: EXAMPLE_QUERY })}' http://127.0.0.1:3000/graphql`;
  const sandbox = opts.sandbox
    ? `<p>With internet access, <a id="sandbox" rel="noreferrer" href="https://studio.apollographql.com/sandbox/explorer">Apollo Sandbox on the web</a>
can query this endpoint from your browser: paste this page's address as its endpoint and add the header
<code>Authorization: Bearer &lt;token&gt;</code>.</p>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>fleet-audit GraphQL API</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
pre{background:#f6f8fa;padding:.75rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}code{background:#f6f8fa}</style>
</head><body>
<h1>fleet-audit GraphQL API</h1>
<p>This is the GraphQL endpoint of ack-fleet-audit. Send queries with <code>POST /graphql</code>, a JSON body
<code>{"query": "..."}</code> and a bearer token (the <code>API_TOKEN</code>, or a scoped <code>fa_</code> token;
<code>demo</code> prints one).</p>
<pre>${html(curl)}</pre>
<p>The types and their fields are in the README ("GraphQL") of the project; the REST API is described by
<a href="/openapi.json">/openapi.json</a> and <a href="/docs">/docs</a>.</p>
${sandbox}
</body></html>
`;
}

/**
 * The Apollo Server plugin serving `graphqlLandingPageHtml` on `GET /graphql` (the page is built once).
 * @param opts.sandbox whether the page links to Apollo Sandbox on the web
 */
export function graphqlLandingPagePlugin(opts: LandingPageOptions): ApolloServerPlugin {
  const page = graphqlLandingPageHtml(opts);
  return {
    serverWillStart() {
      return Promise.resolve({ renderLandingPage: () => Promise.resolve({ html: page }) });
    },
  };
}
