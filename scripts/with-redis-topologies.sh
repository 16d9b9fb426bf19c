#!/usr/bin/env bash
# Runs a command with a real Redis Cluster and a real Sentinel setup on
# loopback, so the store and end-to-end tests run against both:
#   REDIS_CLUSTER_ADDRS     three masters of a Cluster (comma-separated)
#   REDIS_SENTINEL_ADDRS    one sentinel watching a master with one replica
#   REDIS_SENTINEL_MASTER   the master's name
# Without redis-server (or redis-cli) it says so and runs the command alone;
# the tests that need them then skip with a message. Everything it starts
# keeps no data on disk and is stopped when the command ends.
set -euo pipefail

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  echo "with-redis-topologies: redis-server or redis-cli is missing: Cluster and Sentinel tests will skip" >&2
  exec "$@"
fi

dir=$(mktemp -d)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    # Only ever a pid this script recorded, never 0 or -1 (which would
    # signal a whole process group or every process).
    [[ "$pid" =~ ^[1-9][0-9]*$ ]] && kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do # leave no process running
    for _ in $(seq 100); do
      [[ "$pid" =~ ^[1-9][0-9]*$ ]] && kill -0 "$pid" 2>/dev/null || break
      sleep 0.05
    done
  done
  rm -rf "$dir"
}
trap cleanup EXIT

# free_port: a free loopback port at most 55535, since a cluster node also
# listens on its port + 10000 (its bus).
free_port() {
  python3 -c '
import socket
while True:
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close()
    if p <= 55535:
        print(p); break'
}

# start NAME PORT ARGS...: a redis-server (or sentinel) in its own directory,
# recorded for cleanup once it wrote its pid file and answers PING.
start() {
  local name=$1 port=$2; shift 2
  mkdir -p "$dir/$name"
  redis-server "$@" --bind 127.0.0.1 --port "$port" --dir "$dir/$name" \
    --daemonize yes --pidfile "$dir/$name/pid" --logfile "$dir/$name/log"
  for _ in $(seq 300); do
    [[ -s "$dir/$name/pid" ]] && redis-cli -p "$port" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  if [[ ! -s "$dir/$name/pid" ]]; then
    echo "with-redis-topologies: redis-server $name on port $port did not start:" >&2
    cat "$dir/$name/log" >&2 2>/dev/null || true
    exit 1
  fi
  pids+=("$(cat "$dir/$name/pid")")
}

wait_for() { # DESCRIPTION COMMAND...: up to 30 s for COMMAND to succeed
  local what=$1; shift
  for _ in $(seq 300); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "with-redis-topologies: gave up waiting for $what" >&2
  exit 1
}

# Cluster: three masters, no replicas.
cluster=()
for i in 1 2 3; do
  port=$(free_port)
  start "cluster$i" "$port" --save "" --appendonly no --cluster-enabled yes \
    --cluster-config-file "$dir/cluster$i/nodes.conf" --cluster-node-timeout 2000
  cluster+=("127.0.0.1:$port")
done
redis-cli --cluster create "${cluster[@]}" --cluster-yes >"$dir/cluster-create.log" 2>&1 || {
  cat "$dir/cluster-create.log" >&2; exit 1; }
first=${cluster[0]##*:}
wait_for "the cluster to be ok" bash -c "redis-cli -p $first cluster info | grep -q cluster_state:ok"

# Sentinel: a master, a replica of it, one sentinel with quorum 1.
master=$(free_port); replica=$(free_port); sentinel=$(free_port)
start master "$master" --save "" --appendonly no
start replica "$replica" --save "" --appendonly no --replicaof 127.0.0.1 "$master"
wait_for "the replica to sync" bash -c "redis-cli -p $replica info replication | grep -q master_link_status:up"
cat >"$dir/sentinel.conf" <<CONF
sentinel monitor wecodex 127.0.0.1 $master 1
sentinel down-after-milliseconds wecodex 2000
sentinel failover-timeout wecodex 4000
CONF
start sentinel "$sentinel" "$dir/sentinel.conf" --sentinel
wait_for "the sentinel to see the replica" bash -c \
  "redis-cli -p $sentinel sentinel replicas wecodex | grep -q 127.0.0.1"

export REDIS_CLUSTER_ADDRS=$(IFS=,; echo "${cluster[*]}")
export REDIS_SENTINEL_ADDRS=127.0.0.1:$sentinel REDIS_SENTINEL_MASTER=wecodex
echo "with-redis-topologies: Redis Cluster at $REDIS_CLUSTER_ADDRS; Sentinel at $REDIS_SENTINEL_ADDRS (master $REDIS_SENTINEL_MASTER)" >&2
"$@"
