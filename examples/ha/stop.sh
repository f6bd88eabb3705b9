#!/usr/bin/env bash
# Stops what examples/ha/start.sh started in DIR (default ./svcplane-ha): HAProxy first, then
# the servers (SIGTERM: each hands over cleanly), then etcd. The data stays in DIR.
set -uo pipefail
dir=${1:-svcplane-ha}
[ -f "$dir/pids" ] || { echo "no $dir/pids" >&2; exit 1; }
stop() {  # stop NAME-PREFIX
  local pids
  pids=$(awk -v p="$1" 'index($1, p) == 1 { print $2 }' "$dir/pids")
  [ -n "$pids" ] || return 0
  # shellcheck disable=SC2086
  kill $pids 2>/dev/null
  for _ in $(seq 1 150); do
    # shellcheck disable=SC2086
    kill -0 $pids 2>/dev/null || return 0
    sleep 0.2
  done
  # shellcheck disable=SC2086
  kill -9 $pids 2>/dev/null
}
stop haproxy
stop server
stop etcd
: >"$dir/pids"
