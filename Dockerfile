# Quire in one image: the embedded mode by default (SQLite in /data); set QUIRE_DATABASE_URL for
# the cluster store. Debian's Chromium headless shell and tesseract come from the same script `npm start` runs
# (scripts/install-system-deps.sh run), so the image and a bare machine install the same packages
# and take the same ad filter lists out of Debian's uBlock Origin package (into /app/vendor).
# The playground and /docs (web/) are built with the dev dependencies (esbuild, preact, redoc) in a
# stage of their own; only the built pages (web/dist) reach the image.
FROM node:24-bookworm-slim AS web
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --ignore-scripts
COPY web web
COPY scripts/build-web.ts scripts/
RUN node scripts/build-web.ts

FROM node:24-bookworm-slim

# tini reaps what a crashed worker or browser leaves (PID 1 must wait for orphans), and forwards
# SIGTERM so that Quire drains its requests on `docker stop`.
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends tini ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY scripts/install-system-deps.sh scripts/debian-packages.txt scripts/fetch-filter-lists.sh scripts/
RUN bash scripts/install-system-deps.sh run && rm -rf /var/lib/apt/lists/*

# Dependencies first, so that a change of source does not reinstall them.
COPY package.json package-lock.json ./
RUN npm install --omit=dev && npm cache clean --force
COPY src src
COPY --from=web /app/web/dist web/dist
COPY scripts scripts
COPY README.md SECURITY.md ./

# A user of its own, never root: a browser escape or a converter bug gets no more than this user.
RUN useradd --system --create-home --uid 10001 quire \
 && mkdir -p /data && chown quire:quire /data
USER quire
ENV QUIRE_DATA_DIR=/data HOST=0.0.0.0 PORT=3002 NODE_ENV=production
VOLUME /data
EXPOSE 3002

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3002)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "src/main.ts"]
