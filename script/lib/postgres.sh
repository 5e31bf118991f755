# Starts a throwaway PostgreSQL cluster on a loopback port in a temporary folder, and stops it on exit.
# Sourced by script/test; sets CAREPORTAL_TEST_POSTGRES_URL, and CAREPORTAL_TEST_POSTGRES_SOCKET_URL for its Unix socket.

start_test_postgres() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if [ -z "$bin" ]; then
        echo "PostgreSQL is not installed" >&2
        return 1
    fi
    POSTGRES_DIR=$(mktemp -d /tmp/careportal-postgres.XXXXXX)
    chown postgres:postgres "$POSTGRES_DIR"
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    su postgres -s /bin/sh -c "'$bin/initdb' -D '$POSTGRES_DIR/data' -A trust -U postgres -E UTF8 --locale=C.UTF-8" >"$POSTGRES_DIR/initdb.log" 2>&1
    # The Swift suites run hundreds of tests at once, each with its own database and pool: at 400
    # connections PostgreSQL refused some of them for a minute at a time, and their pools gave up.
    su postgres -s /bin/sh -c "'$bin/pg_ctl' -D '$POSTGRES_DIR/data' -l '$POSTGRES_DIR/server.log' -w -o \"-p $port -k '$POSTGRES_DIR' -c listen_addresses=127.0.0.1 -c max_connections=1000 -c fsync=off\" start" >/dev/null
    trap stop_test_postgres EXIT
    export CAREPORTAL_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres"
    export CAREPORTAL_TEST_POSTGRES_SOCKET_URL="postgres://postgres@/postgres?host=$POSTGRES_DIR&port=$port"
    echo "PostgreSQL for the tests is on 127.0.0.1:$port"
    POSTGRES_BIN=$bin
}

stop_test_postgres() {
    if [ -n "${POSTGRES_DIR:-}" ] && [ -d "$POSTGRES_DIR/data" ]; then
        su postgres -s /bin/sh -c "'$POSTGRES_BIN/pg_ctl' -D '$POSTGRES_DIR/data' -m immediate -w stop" >/dev/null 2>&1 || true
        rm -rf "$POSTGRES_DIR"
    fi
}

# A benchmark's server on PostgreSQL needs a sealing key it is given (it makes one itself only for the
# embedded SQLite default): a throwaway one, unless SEALING_KEY is set already.
use_throwaway_sealing_key() {
    export SEALING_KEY="${SEALING_KEY:-$(python3 -c 'import base64, os; print(base64.b64encode(os.urandom(32)).decode())')}"
}
