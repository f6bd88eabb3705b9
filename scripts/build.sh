#!/usr/bin/env bash
# Configures and builds one build directory with ccache and Ninja.
#   scripts/build.sh [BUILD_DIR] [BUILD_TYPE] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
type=${2:-RelWithDebInfo}
shift $(( $# > 2 ? 2 : $# ))
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Hits across clones in different folders (CI builds a fresh clone): paths become relative.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache "$@" >/dev/null
# SVCPLANE_TARGETS="a b": build only those targets.
targets=()
for t in ${SVCPLANE_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$dir" -j "$(nproc)" "${targets[@]}"
