# syntax=docker/dockerfile:1
# The worker image: multi-stage, production dependencies only, non-root, health-checked on /healthz.
# Not built on the machine this repository was written on (no Docker engine there); the same steps were
# run by hand instead: `npm run build`, `npm ci --omit=dev`, `node --max-semi-space-size=8 dist/src/entry/service.js` (docs/operations.md).
#   docker build -t wholesale-portin-balance .
#   docker run --env-file worker.env -p 8080:8080 wholesale-portin-balance   (endpoints and AUTH_* settings: docs/operations.md)

ARG NODE_IMAGE=node:24-bookworm-slim

# 1. Compile TypeScript with the dev dependencies (the Lua scripts are compiled in); copy the Avro schemas into dist/.
#    --ignore-scripts also leaves out the `node` dev dependency's binary: the image's own Node builds. It skips
#    the postinstall too, so the fixes in patches/ are applied here by hand (docs/decisions/kafka-client.md),
#    before the dev dependencies are pruned: what is left is the production dependencies, patched (none of
#    them has an install script; the Snappy and LZ4 codecs, `snappy` and `lz4-napi`, come with prebuilt native
#    parts as optional packages per platform, glibc's here).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund --ignore-scripts && npx --no-install patch-package --error-on-fail
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY schemas ./schemas
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# 2. What every process runs on: compiled code, production node_modules, the product catalog; the image's `node` user.
FROM ${NODE_IMAGE} AS app
ENV NODE_ENV=production \
    HTTP_PORT=8080
WORKDIR /app
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root package.json ./
COPY --chown=root:root config ./config
USER node
EXPOSE 8080

# The webhook dispatcher (docs/webhooks.md): docker build --target webhooks -t wholesale-webhooks .
FROM app AS webhooks
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HTTP_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/entry/webhooks.js"]

# The HTTP gateway (docs/gateway.md): docker build --target gateway -t wholesale-gateway .; stateless, run as many as the load needs.
FROM app AS gateway
ENV HTTP_PORT=8090
EXPOSE 8090
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HTTP_PORT || 8090) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/entry/gateway.js"]

# 3. The worker: the default target (last stage).
FROM app AS runtime
# Liveness only: /readyz (Kafka, registry, Redis, group membership) is for orchestrators that route or gate on it.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HTTP_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `npm start` without npm in between, so SIGTERM reaches node and the worker drains before it exits.
CMD ["node", "--max-semi-space-size=8", "dist/src/entry/service.js"]
