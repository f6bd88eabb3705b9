#!/usr/bin/env bash
# Set up, build Release and start `svcplane serve` on the embedded store, with the controllers
# in-process and 3 simulated nodes (unless --simulate-nodes is given).
#   scripts/run.sh [serve flags...]      e.g. --listen 127.0.0.1:6443 --data-dir ./svcplane-data
# Then: export KUBECONFIG=$PWD/svcplane-data/kubeconfig && kubectl get ns
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build-release Release -DSVCPLANE_BUILD_TESTS=OFF -DSVCPLANE_BUILD_BENCHMARKS=OFF
mkdir -p build/bin
cp build-release/bin/svcplane build/bin/svcplane
echo "svcplane: starting; once ready: export KUBECONFIG=$PWD/svcplane-data/kubeconfig"
args=("$@")
case " $* " in
  *" --simulate-nodes"*) ;;
  *) args+=(--simulate-nodes 3) ;;
esac
exec build/bin/svcplane serve "${args[@]}"
