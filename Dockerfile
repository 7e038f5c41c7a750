# syntax=docker/dockerfile:1
# The planner's worker (and CLI) as an image, built the way an application gets the package: `npm pack` in a build
# stage, then the tarball installed into an application folder with its peer dependencies (@temporalio/*, zod) and
# nothing from the host's node_modules, so the native binaries are this image's platform's.
#
#   docker build -t durable-planner .
#   docker run --rm -e TEMPORAL_ADDRESS=host:7233 -e DATABASE_URL=postgres://… durable-planner            # worker
#   docker run --rm -e TEMPORAL_ADDRESS=host:7233 durable-planner start "Get shipments from last week" --wait
#
# docker-compose.yml runs it beside Temporal and PostgreSQL (docs/deployment.md, "With docker-compose").
ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm-slim AS pack
WORKDIR /src
COPY package.json package-lock.json ./
# Install scripts are not needed to compile (tsc) or pack.
RUN npm install --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json README.md CHANGELOG.md ./
COPY bin ./bin
COPY src ./src
COPY docs ./docs
# prepack builds dist/ (tsc -p tsconfig.build.json).
RUN npm pack --pack-destination /tmp && mv /tmp/durable-planner-*.tgz /tmp/durable-planner.tgz

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production
# The application's folder: its package.json, node_modules and, without DATABASE_URL, the planner's local state in
# .planner/ (docs/configuration.md, "Where local state lives"). Owned by the unprivileged user the image runs as.
WORKDIR /app
RUN chown node:node /app
USER node
COPY --from=pack --chown=node:node /tmp/durable-planner.tgz /tmp/durable-planner.tgz
RUN echo '{"name":"durable-planner-app","private":true}' > package.json \
 && npm install /tmp/durable-planner.tgz --omit=dev --no-audit --no-fund --ignore-scripts \
 && rm /tmp/durable-planner.tgz \
 && npm cache clean --force \
 && node node_modules/durable-planner/bin/planner.js --version
# Workers handle SIGTERM (a graceful shutdown); run with `--init` (compose: `init: true`) so signals reach node.
ENTRYPOINT ["node_modules/.bin/planner"]
CMD ["worker"]
