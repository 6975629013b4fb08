# syntax=docker/dockerfile:1
# The service's image: built with dev tools, shipped without them.
#   podman build --format docker -t saved-query-endpoints .     (or docker build -t … .)
# NODE_IMAGE: any Debian-based Node.js 20+ image with npm (default: the official slim one).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# Marks the build stage's image, so scripts/image/build.sh can remove it after the build.
LABEL saved-query-endpoints.stage=build
WORKDIR /app
COPY package.json package-lock.json ./
# An optional build secret `ca` (a CA bundle) for builds behind a TLS-inspecting proxy.
RUN --mount=type=secret,id=ca \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca npm_config_cafile=/run/secrets/ca; fi; \
    npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000 \
    DATA_DIR=/data \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY sql ./sql
COPY public ./public
COPY LICENSE README.md ./
# Numeric, so it needs no user database in the base image; owns only the data volume.
RUN mkdir -p /data && chown 10001:10001 /data
USER 10001:10001
VOLUME ["/data"]
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/health').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "--max-semi-space-size=4", "--no-allocation-site-pretenuring", "dist/main.js"]
CMD ["serve"]
