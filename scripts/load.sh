#!/usr/bin/env bash
# scripts/load.sh [SESSIONS] [STORE] — the fleet tests at full size.
#
# Runs internal/loadgen's fleet test with SESSIONS concurrent sessions
# (default 200) of replayed real trajectories from ../shared/data, each
# at most $TURNS model calls (default 30), on STORE:
#
#   postgres  two `agentctx serve` processes sharing one PostgreSQL schema
#             ($AGENTCTX_PG_DSN, else the local test database), one of them
#             SIGKILLed at 40 % of the steps (lease 2 s)
#   sqlite    one server on an SQLite file, SIGKILLed at 40 % and restarted
#   both      the two, one after the other (default)
#   fleet     as an operator runs it: three `agentctx serve` and two
#             `agentctx proxy` processes on one PostgreSQL schema, each kind
#             behind a Go load balancer spreading requests at random; one SSE
#             subscriber per session; SESSIONS/2 more sessions driven through
#             the proxies (scripted upstream, budget 12000 tokens); one server
#             and one proxy SIGKILLed at 40 % of their steps
#   paced     one server on an SQLite file, the sessions paced as their model
#             paces them (0.5-1.5 s between a request and its reply), no kill:
#             the table's "turn" row is the time of one model call's calls
#             (its messages sent with its request, then the reply: two
#             calls; SPLIT=1 sends the messages apart, three calls) as the
#             client measured them;
#             "turn, server's Server-Timing" the same turns as the server
#             timed them (its Server-Timing header: without the network,
#             the client and the wait for the client's cores); "turn +
#             extras" adds the inspections, recalls and manual compactions
#             a session makes now and then after a reply; the "machine:"
#             line is how late a 1 ms sleep of the load generator woke,
#             idle (3 s before the sessions) and during the run; "server
#             CPU" the server's user and system time over its calls; then
#             "floor at this mean": the same sessions against the stand-in
#             server of `floor` below spending only that mean CPU time a
#             call (exponential), $FLOOR_SECONDS long: the turn p99 this
#             machine gives a server of agentctx's mean cost, beside the
#             run's own
#   floor     the machine's floor under the paced run's turn row: the same
#             paced sessions (a 16 KB call, 0.5-1.5 s, a 500-byte call)
#             against a stand-in server that only keeps a core busy for
#             an exponential time of mean $FLOOR_US µs a call (a list,
#             default 0,250,500,650,1000; agentctx's server spends about
#             650 at this load), $FLOOR_SECONDS (default 30) a mean: the
#             turn p99 a server of that speed gets here, without
#             agentctx's code
#
# Each run prints its table: throughput (appends/s, requests/s) and per
# route p50/p99 latency, retries and failed attempts; then every session is
# checked against a single in-process Engine. $SEED (default 1) picks the
# trajectories and the servers; $SECONDS_MAX (default 900) bounds a run.
# CI runs the same tests at 20 sessions of 6 calls (go test ./internal/loadgen).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"
sessions="${1:-200}"
store="${2:-both}"
case "$store" in
  postgres) run='TestFleetPostgres' ;;
  sqlite) run='TestFleetSQLite' ;;
  both) run='TestFleet(Postgres|SQLite)$' ;;
  fleet) run='TestFleetProduction' ;;
  paced) run='TestFleetSQLitePaced' ;;
  floor) run='TestPacedFloor' ;;
  *) echo "load.sh: STORE $store: want postgres, sqlite, both, fleet, paced or floor" >&2; exit 2 ;;
esac
if ! [[ "$sessions" =~ ^[0-9]+$ ]] || [ "$sessions" -lt 1 ]; then
  echo "load.sh: SESSIONS $sessions: want a count ≥ 1" >&2; exit 2
fi
echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(go version | cut -d' ' -f3-)"
echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
AGENTCTX_LONG_TESTS=1 AGENTCTX_LOAD_SESSIONS="$sessions" AGENTCTX_LOAD_TURNS="${TURNS:-30}" AGENTCTX_LOAD_SEED="${SEED:-1}" \
AGENTCTX_LOAD_SECONDS="${SECONDS_MAX:-900}" AGENTCTX_LOAD_SPLIT="${SPLIT:-0}" \
AGENTCTX_FLOOR_US="${FLOOR_US:-0,250,500,650,1000}" AGENTCTX_FLOOR_SECONDS="${FLOOR_SECONDS:-30}" \
  go test ./internal/loadgen -run "$run" -count=1 -v -timeout 60m
