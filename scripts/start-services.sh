#!/usr/bin/env bash
# Start the PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) the test suite talks to, each
# only when it does not answer; installs them first (the `test` lines of debian-packages.txt)
# when they are missing. Quick when both are up, so `npm test` runs it every time.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

pg_up() { command -v pg_isready >/dev/null && pg_isready -q -h 127.0.0.1 -p 5432; }
redis_up() { command -v redis-cli >/dev/null && [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = PONG ]; }

# Waits up to 30 s for a service that was just started.
wait_for() {
  local name="$1" check="$2"
  for _ in $(seq 60); do
    "$check" && return 0
    sleep 0.5
  done
  echo "$name did not start" >&2
  return 1
}

pg_up && redis_up && exit 0
installed_pg=false
if ! command -v pg_ctlcluster >/dev/null; then installed_pg=true; fi
if $installed_pg || ! command -v redis-server >/dev/null; then
  bash "$here/install-system-deps.sh" test
fi

if $installed_pg || ! pg_up; then version="$(ls /etc/postgresql | sort -V | tail -n 1)"; fi
if $installed_pg; then
  # The cluster the Debian package just made asks loopback clients for a password; the tests
  # connect as these machines' own server lets them, trusted on loopback. A server that was
  # here before keeps its own settings.
  sed -i '0,/^host/s//host    all             all             127.0.0.1\/32            trust\nhost/' \
    "/etc/postgresql/$version/main/pg_hba.conf"
  # The package may have started it already, with the settings of before.
  if pg_up; then pg_ctlcluster --skip-systemctl-redirect "$version" main reload; fi
fi
if ! pg_up; then
  echo "Starting PostgreSQL $version"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start
  wait_for PostgreSQL pg_up
fi

if ! redis_up; then
  echo "Starting Redis"
  # Nothing on disk: the tests' data is thrown away with the server.
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for Redis redis_up
fi
