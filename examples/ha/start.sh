#!/usr/bin/env bash
# An HA svcplane on one machine: 3 etcd members, 3 svcplane servers sharing them, and HAProxy
# in front of the servers on one address. Everything binds loopback only: etcd and HAProxy on
# 127.0.0.1, server N on 127.0.0.(N+1). The servers advertise TEST-NET addresses
# (192.0.2.11-13) in the `kubernetes` endpoints: on real machines that is each machine's IP
# (see "More than one machine" in the README).
#
#   examples/ha/start.sh [DIR]     # default DIR: ./svcplane-ha; prints the kubeconfig path
#   examples/ha/stop.sh [DIR]
#
# Environment: SVCPLANE (the binary; default build/bin/svcplane), HA_LB_PORT (6443),
# HA_SERVER_PORT (6443), HA_ETCD_PORT (first of 6 ports, 23790), HA_SERVER_ARGS (more
# `svcplane serve` flags for every server).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=$(mkdir -p "${1:-svcplane-ha}" && cd "${1:-svcplane-ha}" && pwd)
svcplane=${SVCPLANE:-$root/build/bin/svcplane}
lb_port=${HA_LB_PORT:-6443}
server_port=${HA_SERVER_PORT:-6443}
etcd_port=${HA_ETCD_PORT:-23790}
etcd=${ETCD:-/usr/bin/etcd}
haproxy=${HAPROXY:-/usr/sbin/haproxy}
[ -x "$svcplane" ] || { echo "no svcplane binary at $svcplane (scripts/build.sh builds it)" >&2; exit 1; }

# The join token: made once, kept in the folder; every server of the cluster gets the same.
[ -s "$dir/token" ] || (umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/token")
token=$(cat "$dir/token")
: >"$dir/pids"

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local until=$((SECONDS + $1)) what=$2; shift 2
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $until ] || { echo "timed out waiting for $what" >&2; exit 1; }
    sleep 0.2
  done
}

cluster=""
for i in 1 2 3; do
  cluster+="${cluster:+,}etcd-$i=http://127.0.0.1:$((etcd_port + 2 * i - 1))"
done
endpoints=""
for i in 1 2 3; do
  client="http://127.0.0.1:$((etcd_port + 2 * i - 2))"
  peer="http://127.0.0.1:$((etcd_port + 2 * i - 1))"
  endpoints+="${endpoints:+,}$client"
  "$etcd" --name "etcd-$i" --data-dir "$dir/etcd-$i" \
    --listen-client-urls "$client" --advertise-client-urls "$client" \
    --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
    --initial-cluster "$cluster" --initial-cluster-state new \
    --initial-cluster-token svcplane-ha >"$dir/etcd-$i.log" 2>&1 </dev/null &
  echo "etcd-$i $!" >>"$dir/pids"
done
for i in 1 2 3; do
  wait_for 30 "etcd-$i" curl -sf "http://127.0.0.1:$((etcd_port + 2 * i - 2))/health"
done

# The first server seals the CA and the admin token into etcd; the others read them, so start
# it first and let it become ready before the others join.
for i in 1 2 3; do
  # shellcheck disable=SC2086
  "$svcplane" serve --store etcd --etcd-servers "$endpoints" --token "$token" \
    --data-dir "$dir/server-$i" --listen "127.0.0.$((i + 1)):$server_port" \
    --advertise-address "192.0.2.$((10 + i))" --hostname-override "svcplane-$i" \
    --tls-san 127.0.0.1 ${HA_SERVER_ARGS:-} >"$dir/server-$i.log" 2>&1 </dev/null &
  echo "server-$i $!" >>"$dir/pids"
  wait_for 60 "server-$i" curl -sfk "https://127.0.0.$((i + 1)):$server_port/readyz"
done

# HAProxy, TCP mode (TLS passes through to the servers, whose certificates name 127.0.0.1 via
# --tls-san), health-checking /readyz over HTTPS as kubeadm's HA guide does. A server failing
# /readyz (stopping, or cut off from etcd) leaves the rotation within 2 s; a connection refused
# by a dead server is retried on another at once (redispatch).
cat >"$dir/haproxy.cfg" <<CFG
global
  maxconn 4096
defaults
  mode tcp
  timeout connect 2s
  timeout client 1h
  timeout server 1h
  timeout tunnel 1h
  retries 3
  option redispatch
frontend svcplane
  bind 127.0.0.1:$lb_port
  default_backend servers
backend servers
  option httpchk GET /readyz
  http-check expect status 200
  default-server check check-ssl verify none inter 1s fall 2 rise 2 on-marked-down shutdown-sessions
  server svcplane-1 127.0.0.2:$server_port
  server svcplane-2 127.0.0.3:$server_port
  server svcplane-3 127.0.0.4:$server_port
CFG
"$haproxy" -f "$dir/haproxy.cfg" -db >"$dir/haproxy.log" 2>&1 </dev/null &
echo "haproxy $!" >>"$dir/pids"
wait_for 30 "haproxy" curl -sfk "https://127.0.0.1:$lb_port/readyz"

# A kubeconfig for the load balancer: server 1's (same CA and admin token on every server),
# pointed at HAProxy.
sed -E "s#server: \"?https://[^\"]*\"?#server: \"https://127.0.0.1:$lb_port\"#" "$dir/server-1/kubeconfig" \
  >"$dir/kubeconfig"
chmod 600 "$dir/kubeconfig"
echo "$dir/kubeconfig"
