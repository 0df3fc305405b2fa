/**
 * The Alibaba Cloud SDKs and `@kubernetes/client-node`, each loaded on its first use instead of when
 * `@app/collectors` is imported.
 *
 * Why: an offline `fleet-audit scan --fleet DIR`, `report`, `checks`, the API and the analysis import
 * `@app/collectors` for its fleet-directory reader and never call a cloud API, but loading these packages took
 * 2.5 s of the CLI's 3.2 s on the sample fleet (ECS and VPC SDKs are over 1,100 files each; measured with
 * `node -e "require(...)"` per package on the project's 2-core VM: ECS 0.79 s, VPC 0.89 s, client-node 0.85 s,
 * CS 0.48 s, RAM 0.45 s, STS 0.31 s, openapi-core 0.28 s). A live crawl loads them at its first client or
 * request, once per process (`require` caches the module).
 *
 * Each accessor returns the package's module object as `import * as` would see it: a default export (the
 * generated SDKs' client classes) is its `default` property. Types come from `import type`, so the signatures
 * are the packages' own. `@kubernetes/client-node` is an ES module; Node 20.19+ `require`s it synchronously
 * (the same as the static import the CommonJS build compiled to before).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import type * as CredentialsModule from '@alicloud/credentials';
import type * as CsModule from '@alicloud/cs20151215';
import type * as EcsModule from '@alicloud/ecs20140526';
import type * as OpenApiModule from '@alicloud/openapi-core';
import type * as RamModule from '@alicloud/ram20150501';
import type * as StsModule from '@alicloud/sts20150401';
import type * as VpcModule from '@alicloud/vpc20160428';
import type * as DaraModule from '@darabonba/typescript';
import type * as KubernetesModule from '@kubernetes/client-node';
import type BottleneckModule from 'bottleneck';
import type * as CockatielModule from 'cockatiel';

/** A loader that runs `load` on its first call and returns the same module on every later one. */
function once<T>(load: () => T): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load());
}

/** `@alicloud/credentials` (the default credential chain: env, profile, ECS RAM role). */
export const credentialsSdk = once(() => require('@alicloud/credentials') as typeof CredentialsModule);
/** `@alicloud/cs20151215` (Container Service for Kubernetes 2015-12-15). */
export const csSdk = once(() => require('@alicloud/cs20151215') as typeof CsModule);
/** `@alicloud/ecs20140526` (ECS 2014-05-26). */
export const ecsSdk = once(() => require('@alicloud/ecs20140526') as typeof EcsModule);
/** `@alicloud/openapi-core` (the generic client and request types: SLB, NLB, Quota Center). */
export const openApiCore = once(() => require('@alicloud/openapi-core') as typeof OpenApiModule);
/** `@alicloud/ram20150501` (RAM 2015-05-01). */
export const ramSdk = once(() => require('@alicloud/ram20150501') as typeof RamModule);
/** `@alicloud/sts20150401` (STS 2015-04-01: AssumeRole). */
export const stsSdk = once(() => require('@alicloud/sts20150401') as typeof StsModule);
/** `@alicloud/vpc20160428` (VPC 2016-04-28). */
export const vpcSdk = once(() => require('@alicloud/vpc20160428') as typeof VpcModule);
/** `@darabonba/typescript` (the SDKs' runtime: `RuntimeOptions`). */
export const dara = once(() => require('@darabonba/typescript') as typeof DaraModule);
/** `@kubernetes/client-node` (the official Kubernetes client). */
export const kubernetesClient = once(() => require('@kubernetes/client-node') as typeof KubernetesModule);

/**
 * `bottleneck` (the per-account API budgets and the per-cluster Kubernetes slots) and `cockatiel` (the retry policy of
 * every remote call): loaded by a live crawl's first limiter or call runner, not by an offline scan that imports
 * `@app/collectors` for its fleet-directory reader (about 30 ms each on the project's 2-core VM).
 */
export const bottleneckPackage = once(() => require('bottleneck') as typeof BottleneckModule);
/** `cockatiel` (see `bottleneckPackage`). */
export const cockatielPackage = once(() => require('cockatiel') as typeof CockatielModule);
