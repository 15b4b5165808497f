#!/usr/bin/env bash
# scripts/bench.sh [COUNT] [BENCHTIME] — issue 15's benchmark report.
#
# Runs the Go benchmarks that hold agentctx's speed and memory targets,
# each COUNT times (default 6) for BENCHTIME (default 1s; "1x" runs each
# once, as CI does to check the script), and prints one benchstat table:
#
#   token       counter MB/s per encoding, against pkoukk/tiktoken-go in the
#               same run; opening a vocabulary
#   agentctx    one Engine step with 10, 1,000 and 10,000 messages of history
#   replay      every file of ../shared/data at 8,000 and 32,000 tokens, bare
#               and with the Engine's extras; the largest file; 10,000 messages;
#               readings per file (classify/call, counted/byte: see below);
#               each file against its floor (reading + counting once: x-floor);
#               a 1,159-call Claude Code session and ten of it concatenated
#               (x-ten: 1 when the per-call cost does not grow)
#   transcript  reading real transcripts (MB/s, B/op against the file size)
#   jsonlstore  loading a 100 MB session (MB/s, peak heap)
#   provider    a request body for OpenAI and Anthropic from 100 rounds, the
#               messages encoded once (spliced) against the SDK's json.Marshal
#   server      the service's turn on SQLite, 200 sessions served in turn
#               (turns/s, p50 and p99 in µs)
#   cmd         start-up: whole processes of the built binary
#
# The raw output is kept in $BENCH_OUT (default: a file in a temporary
# folder, printed at the end) so that two runs compare with
# `benchstat old.txt new.txt`. The README's performance section is made
# from this table; state the machine (nproc, CPU model) beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"
count="${1:-6}"
benchtime="${2:-1s}"
out="${BENCH_OUT:-$(mktemp -d)/bench.txt}"
: > "$out"

BENCHSTAT_VERSION=v0.0.0-20260908200009-22c9c6c9d4da
if ! command -v benchstat >/dev/null 2>&1; then
  go install "golang.org/x/perf/cmd/benchstat@${BENCHSTAT_VERSION}"
fi

run() { # PACKAGE REGEXP
  echo "== $1 -bench '$2'" >&2
  go test "$1" -run '^$' -bench "$2" -benchmem -count "$count" -benchtime "$benchtime" -timeout 60m | tee -a "$out" | grep -E '^(Benchmark|FAIL|panic|---)' >&2 || true
  if grep -q '^FAIL' "$out"; then echo "bench.sh: benchmarks of $1 failed" >&2; exit 1; fi
}

{
  echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(go version | cut -d' ' -f3-)"
  echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
} >> "$out"

run ./token 'Count|LoadVocab'
run . 'EngineStep|CallCost|AddLargeResult'
run ./replay 'Replay(Files|Largest|10k|TenThousand|Reads|Floor|Concat)'
run ./transcript 'Read(ClaudeCode|Files|Concat)'
run ./transcript 'ReadHuge/^100MB$'
run ./session/jsonlstore 'Load100MB'
run ./proxy 'ProxyLatency|ReadCold'
run ./provider/openai 'Body'
run ./provider/anthropic 'Body'
run ./server 'TurnSQLite'
run ./cmd/agentctx 'Startup'

benchstat "$out"

# Issue 29's reading budget (BenchmarkReplayReads): each tool call read
# once (classify/call <= 1: fails the report) and each text counted once
# (counted/byte <= 1: reported; the working memory still counts the
# excerpts it renders, 0.75-2.2 on the shared files).
awk '/^BenchmarkReplayReads/ {
  for (i = 2; i < NF; i++) {
    if ($(i+1) == "classify/call" && $i + 0 > 1.0005) { print "bench.sh: over budget: " $1 " reads " $i " times per tool call" > "/dev/stderr"; bad = 1 }
    if ($(i+1) == "counted/byte" && $i + 0 > 1.0005) { print "bench.sh: counting budget exceeded (not failed): " $1 " counts " $i " bytes per byte of content" > "/dev/stderr" }
  }
} END { exit bad }' "$out" || { echo "bench.sh: a tool call was read more than once" >&2; exit 1; }
# Issue 29's floors, reported (timings: a loaded machine moves them):
# each replay over reading and counting its file once (target 1.5) and
# ten concatenated sessions over ten times one (target 1.5).
awk '/^Benchmark(ReplayFloor|ReplayConcat)/ {
  for (i = 2; i < NF; i++) if (($(i+1) == "x-floor" || $(i+1) == "x-ten") && $i + 0 > 1.5) print "bench.sh: above 1.5 (not failed): " $1 " " $(i+1) " " $i > "/dev/stderr"
}' "$out"
echo "raw results: $out" >&2
