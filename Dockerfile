# syntax=docker/dockerfile:1

# Build: compile TypeScript and the console (dist/console) with the dev dependencies.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
RUN npm ci --ignore-scripts
COPY src ./src
COPY migrations ./migrations
COPY console ./console
RUN npm run build && npm run build:console

# Runtime: production dependencies and the compiled output only, as a non-root user.
FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
# Scripts stay off for dependencies; the one patch (PGlite keeps a leading U+FEFF in text) is applied explicitly,
# and a patch that no longer applies fails the build (--error-on-fail): no image ships an unpatched PGlite.
RUN npm ci --omit=dev --ignore-scripts && npx patch-package --error-on-fail && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# /readyz on PORT: an API process, and a worker process too (it serves /healthz, /readyz and /metrics).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
# The drain after SIGTERM: in-flight requests (up to REQUEST_TIMEOUT_MS), then in-flight jobs (8 s); give the
# container longer than that before SIGKILL (docker-compose.yml: stop_grace_period 45s).
# The heap limit as in `npm start` (README, Operations).
CMD ["node", "--max-old-space-size=512", "dist/src/main.js"]
