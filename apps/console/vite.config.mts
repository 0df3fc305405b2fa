/**
 * Build of the web console (`npm run build:console`, run by `npm install` through `prepare`): a Preact single-page
 * app in dist/console, served by the API at `/` (apps/api console-static.ts). Everything is bundled from this
 * origin: the API's Content-Security-Policy allows no inline script and nothing from another origin. The charts
 * (echarts) are a separate chunk loaded with the first chart, so the first paint does not wait for them.
 */
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/',
  // Preact's automatic JSX runtime through Vite's own transformer (no Babel plugin).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: { alias: { react: 'preact/compat', 'react-dom': 'preact/compat' } },
  build: {
    outDir: here('../../dist/console'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // One CSS file, no inline <style> or data: scripts (CSP: script-src 'self').
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    // The echarts chunk (about 550 kB, 180 kB gzip) is loaded with the first chart only.
    chunkSizeWarningLimit: 700,
  },
  logLevel: 'warn',
});
