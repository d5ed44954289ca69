# syntax=docker/dockerfile:1
#
# The algodesk image: the compiled service, its production dependencies and nothing else.
#   docker build -t algodesk .
#   docker run -d -p 127.0.0.1:5000:5000 -v algodesk-data:/data -e INSTANCE_ID=algodesk --stop-timeout 20 algodesk
# No secret is baked in: APP_KEY and API_KEY_PEPPER come from the environment at run time, or are
# generated on first start into DATA_DIR/install-secrets.json, which lives on the /data volume.

# One base for every stage, within package.json's engines (>=20.19); bookworm (glibc) matches the
# prebuilt binaries of better-sqlite3, @node-rs/argon2 and @ngrok/ngrok.
ARG NODE_IMAGE=node:20.20-bookworm-slim

# Compilers for a native module without a prebuilt binary for the target platform (better-sqlite3
# then builds with node-gyp). Only the build stages have them; the runtime stage does not.
FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci runs the package's prepare script (scripts/build.mjs), which builds nothing without the
# sources (they come in the build stage, whose `npm run build` builds).
COPY scripts/build.mjs ./scripts/

# Every dependency, then tsc (dist/src/cli.js and the rest of dist/) and Vite (the web console,
# web/dist/).
FROM toolchain AS build
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
RUN npm run build

# Production dependencies only, native modules built for this platform.
FROM toolchain AS prod-deps
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
# package.json: "type": "module" makes dist/ ESM, and the system view reads its version.
COPY package.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The built web console, where the server looks for it (web/dist beside package.json).
COPY --from=build /app/web/dist ./web/dist
# The code stays root-owned (the service cannot rewrite itself); /data belongs to the unprivileged
# `node` user of the base image, and a new named volume mounted there starts with that owner.
RUN mkdir -p /data && chown node:node /data
ENV HOST=0.0.0.0 \
    DATA_DIR=/data
VOLUME ["/data"]
USER node
EXPOSE 5000
# Liveness (GET /health) with Node's own fetch: the slim image has no curl.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||5000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# `algodesk serve` handles SIGTERM itself (src/main.ts: stop accepting, finish requests in flight,
# flush writes, close the database; bounded at 15 s, so stop with a timeout above that: compose's
# stop_grace_period, `docker run --stop-timeout 20`). Node runs as PID 1 without an init: it
# installs its own SIGTERM/SIGINT handlers, which PID 1 needs, and the service starts no child
# processes, so there are no orphans to reap. `docker run --init` adds one if you prefer.
STOPSIGNAL SIGTERM
# Exec form: node is PID 1 and gets the signal, no shell in between. Any other command of the CLI
# runs the same way: `docker run --rm -v algodesk-data:/data algodesk user list`.
ENTRYPOINT ["node", "dist/src/cli.js"]
CMD ["serve"]
