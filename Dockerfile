# syntax=docker/dockerfile:1
# One image per service, all from this file:
#   docker build --build-arg SERVICE=gateway -t pilot/gateway .
# SERVICE is the folder name under services/ (gateway, publisher-identity, campaign, allocation,
# tracking, placement, notification, web). The build stage installs and builds the whole workspace once (the layer
# is shared by every service's build); the runtime stage holds only that service's production
# dependencies (`pnpm deploy`), runs as the unprivileged `node` user and needs no writable filesystem.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
ENV CI=true \
    npm_config_store_dir=/pnpm/store
# pnpm 9 from the npm registry (corepack's signature check fails against some registries).
RUN npm install -g pnpm@9.15.9
WORKDIR /src
# Dependencies first, from the lockfile alone, so code changes do not re-download them.
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json ./
# The store stays in this stage's layers (not a cache mount), so the offline steps below always find it.
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline
# Builds every package and service (tsc --build) and the web frontend.
RUN pnpm run build

ARG SERVICE
RUN test -n "${SERVICE}" || { echo "build with --build-arg SERVICE=<folder under services/>" >&2; exit 1; }; \
    test -f "services/${SERVICE}/package.json" || { echo "no service named '${SERVICE}' under services/" >&2; exit 1; }
# The service with its production dependencies only; workspace packages are copied in with their dist/.
# pnpm 9 deploy resolves versions anew (not from the lockfile), so it may read the registry.
RUN pnpm --filter "@pilot/${SERVICE}" deploy --prod --prefer-offline /out \
 && test -f /out/dist/main.js

FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
LABEL org.opencontainers.image.title="pilot-${SERVICE}" \
      org.opencontainers.image.description="Publisher pilot delivery service: ${SERVICE}"
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PILOT_SERVICE=${SERVICE}
WORKDIR /app
COPY --from=build --chown=root:root /out /app
# The `node` user (uid 1000) of the official image; the files stay owned by root, read-only to it.
USER 1000:1000
# The gateway listens on GATEWAY_PORT, every other service on PORT.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "const p=process.env.GATEWAY_PORT||process.env.PORT;fetch('http://127.0.0.1:'+p+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM goes straight to node (no shell), which shuts down gracefully.
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
