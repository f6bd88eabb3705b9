#!/usr/bin/env bash
# Set up, build Release and start svcplane's main job.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build-release Release -DSVCPLANE_BUILD_TESTS=OFF -DSVCPLANE_BUILD_BENCHMARKS=OFF
mkdir -p build/bin
cp build-release/bin/svcplane build/bin/svcplane
exec build/bin/svcplane version "$@"
