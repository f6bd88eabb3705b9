#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for N seconds (default 60).
#   scripts/fuzz.sh [SECONDS]        (SVCPLANE_FUZZ_SEED=N makes a run repeatable)
# A crash leaves its input in build-fuzz/crashes/; turn it into a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
CC=clang CXX=clang++ SVCPLANE_TARGETS="json_decode_fuzz protobuf_decode_fuzz selector_fuzz" scripts/build.sh \
  build-fuzz Debug -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DSVCPLANE_FUZZ=ON \
  -DSVCPLANE_BUILD_TESTS=OFF -DSVCPLANE_BUILD_BENCHMARKS=OFF
mkdir -p build-fuzz/crashes
shopt -s nullglob
for f in build-fuzz/fuzz/*; do
  name=$(basename "$f")
  corpus=build-fuzz/corpus/$name
  mkdir -p "$corpus"
  seeds=test/fuzz-seeds/$name
  echo "== fuzz $name for ${secs}s"
  "$f" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 ${SVCPLANE_FUZZ_SEED:+-seed=$SVCPLANE_FUZZ_SEED} \
    -artifact_prefix=build-fuzz/crashes/"$name"- "$corpus" $( [ -d "$seeds" ] && echo "$seeds" ) \
    2>build-fuzz/"$name".log || { tail -50 build-fuzz/"$name".log; exit 1; }
  tail -2 build-fuzz/"$name".log
done
