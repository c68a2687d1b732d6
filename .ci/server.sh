#!/usr/bin/env bash
# The course server's heavy check, a step of .ci/run of its own: its test suite again against PostgreSQL (Debian's
# postgresql, started here on a loopback port in a temporary folder and stopped at the end). Needs the test
# environment `make test` built (.venv). The full-size load run (python -m benchmarks.server_load, 100 students for
# 5 minutes) is run by hand (docs/teaching-server.md, "Load"); the suite runs it small.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends postgresql
fi
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | tail -n 1)
PGDATA=$(mktemp -d /tmp/cer-theory-pg.XXXXXX)
# a free port of this machine (a fixed one may be held by another PostgreSQL)
PGPORT=${CER_THEORY_PG_PORT:-$(.venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
$SUDO chown postgres "$PGDATA"
as_postgres() { $SUDO su postgres -s /bin/sh -c "$1"; }
as_postgres "$PGBIN/initdb -D $PGDATA -A trust -U postgres" >/dev/null
as_postgres "$PGBIN/pg_ctl -D $PGDATA -l $PGDATA/log -w -o \"-p $PGPORT -k $PGDATA -c listen_addresses=127.0.0.1\" start" >/dev/null
trap 'as_postgres "$PGBIN/pg_ctl -D $PGDATA -m fast -w stop" >/dev/null; $SUDO rm -rf "$PGDATA"' EXIT
as_postgres "$PGBIN/createdb -h 127.0.0.1 -p $PGPORT -U postgres cer_theory_test"

CER_THEORY_TEST_DATABASE="postgresql://postgres@127.0.0.1:$PGPORT/cer_theory_test" \
  .venv/bin/python -m pytest proofs_tests/server/test_server_authorization.py proofs_tests/server/test_server_course.py \
  -q -p no:cacheprovider -n 0

