#!/usr/bin/env bash
# Installs every Debian package svcplane needs to build, test and run. Idempotent: it asks apt
# only when something is missing, and runs `apt-get update` at most once.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  clang libclang-rt-14-dev clang-format          # fuzzing (libFuzzer) and formatting
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev libboost-system1.81-dev
  libboost-context1.81-dev                       # request fibers on the I/O threads
  libsimdjson-dev libyaml-dev libyaml-cpp-dev librocksdb-dev libssl-dev
  libspdlog-dev libfmt-dev libcli11-dev
  libgoogle-perftools-dev                        # tcmalloc for the svcplane binary
  zlib1g-dev                                     # gzip of rotated audit logs
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  etcd-server                                     # the distributed backend and its benchmark
  haproxy                                         # the load balancer of examples/ha and its test
  golang-etcd-server-dev golang-github-gogo-protobuf-dev  # etcd's .proto files (storage/etcd)
  golang-github-grpc-ecosystem-grpc-gateway-dev   # google/api/annotations.proto that rpc.proto imports
  protobuf-compiler protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev  # etcd's v3 gRPC API
  python3 python3-kubernetes python3-yaml         # integration tests with the Python client
  openssl curl procps
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
