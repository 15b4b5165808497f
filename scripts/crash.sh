#!/usr/bin/env bash
# crash.sh N: the crash campaign of the JSONL session store (issue 14).
#
# N times, a writer process appends to one of three sessions (one entry
# per Append, a compaction -- boundary and summary in one Append -- every
# 25th, printing each entry's uuid once Append has returned: the entries
# it was told are written) and is killed with SIGKILL after a random
# 5-300 ms, at start-up, mid-append or mid-compaction. Then every session
# must load, check OK (`agentctx sessions check`: torn lines are
# warnings), accept an append, and hold every acknowledged entry exactly
# once. The writer is the jsonlstore test binary's helper mode
# (TestHelperProcess in session/jsonlstore/process_test.go).
#
# Exit status: 0 when nothing was lost; 1 on any loss or failure; 2 on
# usage errors. CI runs N=10; run N=100 or more by hand.
set -euo pipefail
if [ $# -ne 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/crash.sh N   (N random SIGKILLs of a writer)" >&2
  exit 2
fi
n=$1
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/jsonlstore.test" ./session/jsonlstore
go build -o "$tmp/agentctx" ./cmd/agentctx
root="$tmp/store"
helper() { # helper MODE ID [env...]: run the helper mode on session ID
  local mode=$1 id=$2
  shift 2
  env JSONLSTORE_TEST_HELPER="$mode" JSONLSTORE_TEST_ROOT="$root" JSONLSTORE_TEST_ID="$id" "$@" \
    "$tmp/jsonlstore.test" -test.run='^TestHelperProcess$' -test.count=1
}
# writer ID: the appending helper on session ID, as this process (exec),
# so that the pid `&` gives is the writer's own.
writer() {
  exec env JSONLSTORE_TEST_HELPER=append JSONLSTORE_TEST_ROOT="$root" JSONLSTORE_TEST_ID="$1" \
    "$tmp/jsonlstore.test" -test.run='^TestHelperProcess$' -test.count=1
}
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
sessions=(crash-a crash-b crash-c)
for id in "${sessions[@]}"; do
  helper create "$id"
  : > "$tmp/$id.acked"
done

start=$(date +%s)
failed=0
for ((k = 1; k <= n; k++)); do
  id=${sessions[RANDOM % ${#sessions[@]}]}
  writer "$id" >> "$tmp/$id.acked" 2> "$tmp/writer.err" &
  pid=$!
  sleep "$(printf '0.%03d' $((5 + RANDOM % 296)))"
  kill -KILL "$pid" 2>/dev/null || true
  status=0
  wait "$pid" 2>/dev/null || status=$?
  pid=
  if [ "$status" -ne 137 ]; then
    echo "round $k: the writer of $id exited with status $status before it was killed:" >&2
    cat "$tmp/writer.err" >&2
    failed=1
  fi
done
acked=$(cat "$tmp"/*.acked | wc -l)
echo "$n writers killed in $(( $(date +%s) - start )) s; $acked entries acknowledged"

for id in "${sessions[@]}"; do
  if ! "$tmp/agentctx" sessions check --home "$root" "$id" > "$tmp/check.out"; then
    echo "session $id does not check OK:" >&2
    cat "$tmp/check.out" >&2
    failed=1
  fi
  if ! helper verify "$id" JSONLSTORE_TEST_ACKED="$tmp/$id.acked"; then
    failed=1
  fi
done
if [ "$failed" -ne 0 ]; then
  echo "crash campaign FAILED" >&2
  exit 1
fi
echo "crash campaign passed: no acknowledged entry lost"
