#!/usr/bin/env bash
# Makes sure PostgreSQL and Redis answer on 127.0.0.1 for the tests: starts them when they are
# installed but stopped, and stops with how to install them when they are missing.
set -euo pipefail

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

wait_for() {  # wait_for NAME CHECK
  for _ in $(seq 1 30); do "$2" && return 0; sleep 1; done
  echo "$1 did not come up on 127.0.0.1" >&2; exit 1
}

if ! pg_up; then
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    echo "Starting PostgreSQL..."
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start
    wait_for PostgreSQL pg_up
  else
    echo "PostgreSQL is not installed. Install it with: apt-get install postgresql" >&2
    echo "(the tests need it on 127.0.0.1:5432 with trust auth for user postgres)" >&2
    exit 1
  fi
fi

if ! redis_up; then
  if command -v redis-server >/dev/null; then
    echo "Starting Redis..."
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log
    wait_for Redis redis_up
  else
    echo "Redis is not installed. Install it with: apt-get install redis-server" >&2
    exit 1
  fi
fi
echo "PostgreSQL and Redis are up."
