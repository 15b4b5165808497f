#!/usr/bin/env bash
# fuzz.sh DURATION: runs every fuzz target of the module for DURATION
# each (a Go duration, "30s", or an iteration count, "500x"), one target
# at a time, and fails when any target finds a crash. Targets are found
# with `go test -list '^Fuzz'` in every package that has tests, so a new
# target is run without editing this script.
#
# Every run passes -fuzzminimizetime (FUZZ_MINIMIZE, default 2s): by
# default the fuzzer spends up to a minute minimizing each input, and
# targets with large seeds (real transcripts) would spend a short run
# doing nothing else. A crasher is written, as go test does, to the
# package's testdata/fuzz/<Target>/; keep it there with the fix.
#
# Environment: FUZZ_MINIMIZE (see above), FUZZ_PACKAGES (packages to
# search, default ./...), FUZZ_MATCH (a regexp the target names must
# match, default all).
#
# CI runs `bash scripts/fuzz.sh 3s`; a campaign is `bash scripts/fuzz.sh 5m`.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -ne 1 ]; then
  echo "usage: scripts/fuzz.sh DURATION   (for example 30s, 5m or 1000x)" >&2
  exit 2
fi
duration=$1
minimize=${FUZZ_MINIMIZE:-2s}
match=${FUZZ_MATCH:-.}

# Packages with test files, then their fuzz targets.
mapfile -t pkgs < <(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ${FUZZ_PACKAGES:-./...})
targets=()
for pkg in "${pkgs[@]}"; do
  [ -n "$pkg" ] || continue
  while read -r name; do
    case $name in
      Fuzz*) [[ $name =~ $match ]] && targets+=("$pkg $name") ;;
    esac
  done < <(go test -list '^Fuzz' "$pkg")
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz targets found" >&2
  exit 1
fi

echo "fuzz.sh: ${#targets[@]} targets, $duration each, -fuzzminimizetime $minimize"
start=$SECONDS
failed=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  t0=$SECONDS
  if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$duration" -fuzzminimizetime "$minimize" "$pkg" >"$log" 2>&1; then
    printf 'ok    %-60s %3ds\n' "$pkg $name" $((SECONDS - t0))
  else
    printf 'FAIL  %-60s %3ds\n' "$pkg $name" $((SECONDS - t0))
    sed 's/^/      /' "$log"
    failed+=("$pkg $name")
  fi
done
echo "fuzz.sh: ${#targets[@]} targets in $((SECONDS - start))s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: ${#failed[@]} failed (crashers are under each package's testdata/fuzz/):"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
