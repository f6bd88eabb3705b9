#!/usr/bin/env bash
# Alternated A/B pairs of apiserver_bench against two svcplane binaries, so a VM whose speed
# drifts over minutes (this one does, by 30-70%) cannot pass for a change's effect.
#   bench/ab.sh PAIRS BIN_A BIN_B [apiserver_bench args...]
# Default bench args: 40,000 Pods, 5,000 GETs, 5 LISTs, no watchers. Prints the key rows of
# every run, labelled A or B, in the order they ran.
set -euo pipefail
pairs=$1 a=$2 b=$3
shift 3
bench=${APISERVER_BENCH:-$(dirname "$0")/../build/bench/apiserver_bench}
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(--pods 40000 --gets 5000 --lists 5 --watchers 0)
for i in $(seq 1 "$pairs"); do
  for side in A B; do
    bin=$a
    [ "$side" = B ] && bin=$b
    echo "== pair $i $side $(date -u +%H:%M:%S) $bin"
    "$bench" --server "$bin" "${args[@]}" 2>/dev/null |
      grep -E 'creates/s|p50 / p99|per create|LIST|per LIST' || echo "(bench failed)"
  done
done
