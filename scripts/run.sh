#!/usr/bin/env bash
# Set up, build Release and start `svcplane serve` on the embedded store, with the controllers
# in-process, 3 simulated nodes (unless --simulate-nodes is given) and the audit log of
# examples/audit-policy.yaml in <data dir>/audit.log (unless --audit-policy-file is given).
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
# The shipped audit policy (examples/audit-policy.yaml), logging into the data folder.
data_dir=./svcplane-data
prev=""
for a in "$@"; do
  case "$a" in --data-dir=*) data_dir=${a#--data-dir=} ;; esac
  [ "$prev" = "--data-dir" ] && data_dir=$a
  prev=$a
done
case " $* " in
  *" --audit-policy-file"*) ;;
  *) args+=(--audit-policy-file examples/audit-policy.yaml --audit-log-path "$data_dir/audit.log") ;;
esac
exec build/bin/svcplane serve "${args[@]}"
