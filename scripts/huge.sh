#!/usr/bin/env bash
# huge.sh SIZE_MIB: measures wall time, CPU time and peak RSS of
# `sessions check`, `sessions import`, `sessions show` and `replay` on a
# Claude Code session of SIZE_MIB MiB generated from the shared data
# (scripts/hugesession). Needs GNU time (/usr/bin/time). Example:
#
#	scripts/huge.sh 100
set -euo pipefail
size=${1:?usage: scripts/huge.sh SIZE_MIB}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/agentctx" ./cmd/agentctx
go run ./scripts/hugesession "$size" > "$work/session.jsonl"
id=8463c716-a2ea-4c14-9efa-87158ebd9f20
measure() {
	/usr/bin/time -f "%e s wall, %U s user, %M KiB peak RSS: $*" "$work/agentctx" "$@" > /dev/null
}
echo "session: $(du -h "$work/session.jsonl" | cut -f1), $(wc -l < "$work/session.jsonl") lines"
measure sessions check "$work/session.jsonl" || true # exit 1 when it finds problems
measure sessions import --home "$work/home" "$work/session.jsonl"
measure sessions show --home "$work/home" "$id"
measure replay --budget 100000 "$work/session.jsonl"
