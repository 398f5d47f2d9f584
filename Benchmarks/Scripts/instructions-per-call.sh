#!/usr/bin/env bash
# Instructions per call of the hot paths, counted by callgrind: repeatable on a loaded machine,
# where times are not. Run from Benchmarks/ after `swift build -c release --product OperationProfile`.
#
#   Scripts/instructions-per-call.sh [scenario ...]    # default: fetch fetch-defaults mutate
#
# For each scenario it counts a run of 1,000 and of 3,000 calls and prints
# (count at 3,000 − count at 1,000) / 2,000. The scenarios that switch callgrind's instrumentation
# on around their measured loop (invalidate, invalidate-1m, selection, selection-plain, and the
# persistence scenarios hydrate*, write-*, fetch-persisted, flush-persisted) run with
# --instr-atstart=no, so that their setup (up to 1,000,000 stores, or a database file) is not
# instrumented. (flush-persisted counts one flush, whatever the count: divide its count at N by N
# instead.)
#
# It counts a copy of the binary without its debug information (`objcopy --strip-debug`):
# swift-prometheus brings swift-atomics' C target `_AtomicsShims`, which the toolchain's clang
# compiles in DWARF 5, and Valgrind 3.19 gives up on the binary ("Possibly corrupted debuginfo
# file"). Callgrind names functions from the symbol table, and the program runs the same
# instructions.
set -euo pipefail
cd "$(dirname "$0")/.."
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(fetch fetch-defaults mutate)
out=$(mktemp -d)
profile="$out/OperationProfile"
objcopy --strip-debug .build/release/OperationProfile "$profile"
count() {
  local instr=yes
  case "$1" in
  invalidate | invalidate-1m | selection | selection-plain | hydrate* | write-* | fetch-persisted | \
    flush-persisted) instr=no ;;
  esac
  valgrind --tool=callgrind --instr-atstart="$instr" --callgrind-out-file="$out/$1-$2.out" \
    "$profile" "$1" "$2" >/dev/null 2>&1
  callgrind_annotate "$out/$1-$2.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}
for scenario in "${scenarios[@]}"; do
  low=$(count "$scenario" 1000)
  high=$(count "$scenario" 3000)
  echo "$scenario $(( (high - low) / 2000 ))"
done
rm -rf "$out"
