#!/usr/bin/env bash
# scripts/agents.sh [pinned|latest] [install] — the real-agents conformance suite.
#
# Installs the coding agents from npm (pinned versions, or @latest) with
# `npm install --prefix` into a cache folder, runs internal/agentconf's
# TestAgents (each agent headless against a scripted model server, directly
# and through `agentctx proxy --budget 20000`), prints its table, then runs
# `agentctx replay --strict` on each agent's own transcript of its direct
# run and prints the exit statuses (reported, never failing the script).
#
#   AGENTCTX_AGENTS_DIR     install folder (default
#                           $HOME/.cache/agentctx-agents/<mode>)
#   AGENTCTX_AGENTS_OUT     results, request bodies and transcripts (default:
#                           a new temporary folder, printed). The bodies hold
#                           the agents' own prompts: keep them out of the repo.
#   AGENTCTX_AGENTS_STRICT  1: assert the proxied runs' acceptance figures too
#   AGENTCTX_AGENTS_ONLY    run only the agents whose name contains it
#
# With "install" as its second argument it installs and stops (CI installs
# so, then runs the suite inside `go test ./...` with AGENTCTX_AGENTS_DIR
# set).
#
# Needs node and npm (Claude Code asks for node >= 22 but runs its native
# binary on 20), git, and Go. Only npm's registry is reached.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
mode="${1:-pinned}"
case "$mode" in
pinned)
	pkgs=(@anthropic-ai/claude-code@2.1.328 @openai/codex@0.169.0 @google/gemini-cli@0.61.0 opencode-ai@1.18.33)
	;;
latest)
	pkgs=(@anthropic-ai/claude-code@latest @openai/codex@latest @google/gemini-cli@latest opencode-ai@latest)
	;;
*)
	echo "usage: scripts/agents.sh [pinned|latest]" >&2
	exit 2
	;;
esac
dir="${AGENTCTX_AGENTS_DIR:-$HOME/.cache/agentctx-agents/$mode}"
out="${AGENTCTX_AGENTS_OUT:-$(mktemp -d -t agentconf.XXXXXX)}"
mkdir -p "$dir" "$out"

# One package at a time, so that one that does not install does not keep
# the others out. Install scripts stay off (npm's default for packages not
# allowed): every agent here ships its binary in a package of its own.
for p in "${pkgs[@]}"; do
	if [ "$mode" = pinned ] && [ -f "$dir/node_modules/${p%@*}/package.json" ] &&
		grep -q "\"version\": \"${p##*@}\"" "$dir/node_modules/${p%@*}/package.json"; then
		continue
	fi
	echo "npm install $p" >&2
	if ! npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$p" >"$out/npm-${p//\//_}.log" 2>&1; then
		echo "agents.sh: $p did not install (see $out/npm-${p//\//_}.log)" >&2
	fi
done

if [ "${2:-}" = install ]; then
	echo "agents installed in $dir"
	exit 0
fi

bin="$out/agentctx"
go build -o "$bin" ./cmd/agentctx

status=0
AGENTCTX_LONG_TESTS=1 AGENTCTX_AGENTS_DIR="$dir" AGENTCTX_AGENTS_OUT="$out" AGENTCTX_BIN="$bin" \
	go test -count=1 -timeout 30m -run 'TestAgents$' ./internal/agentconf/ >"$out/test.log" 2>&1 || status=$?
grep -E '^(--- |ok|FAIL|PASS)|^\s+--- ' "$out/test.log" || true
if [ "$status" -ne 0 ]; then
	echo "agents.sh: the suite failed (exit $status); the log: $out/test.log" >&2
	grep -E -A3 '_test.go:[0-9]+: .*(not done|violation|want|over|managed|byte for byte|did not|exited)' "$out/test.log" | grep -v ' requests (' | head -40 >&2 || true
fi

echo
echo "## Real agents ($mode), budget 20000 tokens"
echo
if [ -f "$out/results.md" ]; then
	cat "$out/results.md"
else
	echo "(no results: see $out/test.log)"
fi

echo
echo "## agentctx replay --strict on each agent's own transcript (direct runs)"
echo
echo "| run | transcript | exit |"
echo "|---|---|---|"
for run in "$out"/runs/*-direct; do
	[ -d "$run/transcript" ] || continue
	find "$run/transcript" -type f \( -name '*.jsonl' -o -name '*.json' \) | sort | while read -r f; do
		code=0
		"$bin" replay --strict "$f" >"$f.replay.txt" 2>&1 || code=$?
		echo "| $(basename "$run") | ${f#"$run/transcript/"} | $code |"
	done
done
echo
echo "Results, request bodies, transcripts and logs: $out"
exit "$status"
