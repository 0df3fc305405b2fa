# syntax=docker/dockerfile:1
#
# ack-fleet-audit image: the `fleet-audit` command (api: `serve`, workers: `worker`, one-shot:
# `migrate`, `scan`, `iam-policy` ...). Multi-stage: the build stage has the dev dependencies and
# runs the same npm commands as CI (.ci/run: `npm install --no-audit --no-fund`, then `npm run build`);
# the runtime stage has production dependencies only and runs as the non-root `node` user.
# test/deploy/dockerfile.spec.ts checks these rules (no Docker engine or hadolint on the CI machine).

# Node.js 24 is the Active LTS line (Node 20 reached end of life in April 2026).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `npm install`, not `npm ci`: this registry's lock omits platform packages it does not serve
# (STACK.md pitfall 14). --ignore-scripts: `prepare` would build before the sources are copied.
RUN npm install --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    API_HOST=0.0.0.0 \
    API_PORT=3000 \
    LOG_LEVEL=info
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/migrations ./migrations
COPY --from=build /app/examples ./examples
COPY --from=build /app/docs/schemas ./docs/schemas
USER node
EXPOSE 3000
# The API's liveness endpoint; worker and one-shot containers override or disable it (docker-compose.yml).
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.API_PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# A 64 MiB young generation (V8's default is 16): the analysis keeps millions of results alive until the scan is
# stored, and each default-sized scavenge copies them again; at 5,000 clusters this flag cut GC time by half
# (README "Large fleets"). Kept at 64 MiB (the minimum too): V8 shrinks the young generation while the process waits
# on PostgreSQL, and each scavenge of a store beside a 4 GB heap costs 40-70 ms however little it frees (a
# 5,000-cluster store: 441-610 scavenges, 20-22 s, against 149, 8.7 s). They must be on the command line (NODE_OPTIONS
# refuses --min-semi-space-size): V8 sizes the heap before any code runs.
ENTRYPOINT ["node", "--max-semi-space-size=64", "--min-semi-space-size=64", "bin/fleet-audit.js"]
CMD ["--help"]
