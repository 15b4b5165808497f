#!/usr/bin/env bash
# fuzz.sh DURATION: runs every fuzz target of the module for DURATION
# each (a Go duration, "30s", or an iteration count, "500x"), one target
# at a time, and fails when any target finds a crash. Targets are found
# by listing (-test.list '^Fuzz') the test binary of every package whose
# test files declare one, so a new target is run without editing this
# script.
#
# Each package's test binary is built once, instrumented for fuzzing
# (go test -c -fuzz), and run from the package's folder as go test runs
# it: crashers go to the package's testdata/fuzz/<Target>/ (keep them
# there with the fix), new interesting inputs to the Go build cache's
# fuzz corpus. Building once per package rather than once per target
# keeps a short run short.
#
# Every run passes -fuzzminimizetime (FUZZ_MINIMIZE, default 2s): by
# default the fuzzer spends up to a minute minimizing each input, and
# targets with large seeds (real transcripts) would spend a short run
# doing nothing else.
#
# Go 1.26's fuzzing coordinator can end a run that found nothing with a
# bare "context deadline exceeded" at the -fuzztime boundary, mostly on a
# loaded machine (go.dev/issue/75804, fixed in Go 1.27). Such a run, which
# wrote no crasher, is reported as a flake and does not fail the script;
# any other failure does.
#
# Environment: FUZZ_MINIMIZE (see above), FUZZ_PACKAGES (packages to
# search, default ./...), FUZZ_MATCH (a regexp the target names must
# match, default all).
#
# CI runs `bash scripts/fuzz.sh 2s`; a campaign is `bash scripts/fuzz.sh 5m`.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -ne 1 ]; then
  echo "usage: scripts/fuzz.sh DURATION   (for example 30s, 5m or 1000x)" >&2
  exit 2
fi
duration=$1
minimize=${FUZZ_MINIMIZE:-2s}
match=${FUZZ_MATCH:-.}
corpus="$(go env GOCACHE)/fuzz"
bin=$(mktemp -d)
log="$bin/log"
trap 'rm -rf "$bin"' EXIT

start=$SECONDS
# Packages whose test files declare a fuzz target.
pkgs=()
dirs=()
while read -r pkg dir; do
  [ -n "$pkg" ] || continue
  grep -qs '^func Fuzz' "$dir"/*_test.go || continue
  pkgs+=("$pkg")
  dirs+=("$dir")
done < <(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}' ${FUZZ_PACKAGES:-./...})
# Their instrumented test binaries, built a few at a time (linking is
# serial within one build).
jobs_max=$(nproc 2>/dev/null || echo 2)
for i in "${!pkgs[@]}"; do
  go test -c -fuzz . -o "$bin/$i.test" "${pkgs[$i]}" &
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
done
wait || true
targets=() # "import-path dir binary target"
for i in "${!pkgs[@]}"; do
  test="$bin/$i.test"
  if [ ! -x "$test" ]; then
    echo "fuzz.sh: building the tests of ${pkgs[$i]} failed" >&2
    exit 1
  fi
  while read -r name; do
    case $name in
      Fuzz*) [[ $name =~ $match ]] && targets+=("${pkgs[$i]} ${dirs[$i]} $test $name") ;;
    esac
  done < <(cd "${dirs[$i]}" && "$test" -test.list '^Fuzz')
done
n=${#pkgs[@]}
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz targets found" >&2
  exit 1
fi

echo "fuzz.sh: ${#targets[@]} targets in $n packages (built in $((SECONDS - start))s), $duration each, -fuzzminimizetime $minimize"
start=$SECONDS
failed=()
flaked=()
for t in "${targets[@]}"; do
  read -r pkg dir test name <<<"$t"
  t0=$SECONDS
  before=$(ls "$dir/testdata/fuzz/$name" 2>/dev/null || true)
  if (cd "$dir" && "$test" -test.run '^$' -test.fuzz "^${name}\$" -test.fuzztime "$duration" \
    -test.fuzzminimizetime "$minimize" -test.fuzzcachedir "$corpus/$pkg") >"$log" 2>&1; then
    execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 || true)
    printf 'ok    %-60s %3ds  %s\n' "$pkg $name" $((SECONDS - t0)) "${execs:-execs: 0}"
  elif [ "$(ls "$dir/testdata/fuzz/$name" 2>/dev/null || true)" = "$before" ] &&
    grep -qx '    context deadline exceeded' "$log" && ! grep -q -- "--- FAIL: $name/" "$log"; then
    printf 'flake %-60s %3ds  context deadline exceeded, no crasher (go.dev/issue/75804)\n' "$pkg $name" $((SECONDS - t0))
    flaked+=("$pkg $name")
  else
    printf 'FAIL  %-60s %3ds\n' "$pkg $name" $((SECONDS - t0))
    sed 's/^/      /' "$log"
    failed+=("$pkg $name")
  fi
done
echo "fuzz.sh: ${#targets[@]} targets fuzzed in $((SECONDS - start))s, ${#failed[@]} failed, ${#flaked[@]} flaked"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: ${#failed[@]} failed (crashers are under each package's testdata/fuzz/):"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
