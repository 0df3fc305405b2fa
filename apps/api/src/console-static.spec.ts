import { describe, expect, it } from 'vitest';
import { CONSOLE_ROUTE } from './console-static';

describe('CONSOLE_ROUTE (the paths the API answers with the console page)', () => {
  it('takes every console page path', () => {
    for (const p of [
      '/',
      '/findings',
      '/findings/',
      '/clusters',
      '/clusters/c1e64668d4e11407d7227bc187533f952',
      '/load-balancers/lb-bp1i0hoxo5qje4vllnxj',
      '/nlbs/nlb-arena01',
      '/whatif',
      '/scans',
      '/scans/4f99e37f-87f6-4357-8c2b-c6d109a632ba',
      '/reports',
      '/waivers',
      '/tokens',
    ]) {
      expect(CONSOLE_ROUTE.test(p), p).toBe(true);
    }
  });

  it('never takes an API route, an asset or an unknown path', () => {
    for (const p of [
      '/v1',
      '/v1/findings',
      '/v1/clusters',
      '/v1/load-balancers/lb-1',
      '/graphql',
      '/metrics',
      '/healthz',
      '/readyz',
      '/docs',
      '/docs/',
      '/openapi.json',
      '/assets/index.js',
      '/clusters/a/b',
      '/load-balancers',
      '/nlbs',
      '/v1/nlbs/nlb-1',
      '/favicon.ico',
      '/findingsx',
      '//findings',
    ]) {
      expect(CONSOLE_ROUTE.test(p), p).toBe(false);
    }
  });
});
