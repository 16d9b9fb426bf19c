#!/usr/bin/env bash
# Runs a command with REDIS_URL pointing at a Redis that answers, and says which.
# Order: REDIS_URL as given; the local Redis at 127.0.0.1:6379; a redis-server we
# start on a free port (installed from Debian's packages when missing) and stop
# when the command ends. WITH_REDIS_PRIVATE=1 always starts one: a latency run
# then measures wecodex, not the other work a shared Redis serves.
set -euo pipefail

ping_redis() { # host port -> 0 when it answers PONG
  local reply
  { exec 3<>"/dev/tcp/$1/$2"; } 2>/dev/null || return 1
  printf 'PING\r\n' >&3
  IFS= read -r -t 2 reply <&3 || true
  exec 3>&- 3<&-
  [[ "$reply" == "+PONG"* ]]
}

if [[ "${WITH_REDIS_PRIVATE:-}" == 1 ]]; then
  echo "with-redis: WITH_REDIS_PRIVATE=1: starting a redis-server for this run alone" >&2
elif [[ -n "${REDIS_URL:-}" ]]; then
  echo "with-redis: using REDIS_URL=$REDIS_URL (from the environment)" >&2
  exec "$@"
fi

if [[ "${WITH_REDIS_PRIVATE:-}" != 1 ]] && ping_redis 127.0.0.1 6379; then
  export REDIS_URL=redis://127.0.0.1:6379
  echo "with-redis: using the local Redis at $REDIS_URL" >&2
  exec "$@"
fi

if ! command -v redis-server >/dev/null; then
  echo "with-redis: no Redis answers and redis-server is missing; installing it from Debian's packages" >&2
  if [[ $(id -u) -eq 0 ]]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server) >&2
  else
    echo "with-redis: not root; install redis-server or set REDIS_URL" >&2
    exit 1
  fi
fi

dir=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 16379)
redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no --dir "$dir" --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
cleanup() { kill "$(cat "$dir/redis.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
for _ in $(seq 50); do ping_redis 127.0.0.1 "$port" && break; sleep 0.1; done
export REDIS_URL="redis://127.0.0.1:$port"
echo "with-redis: started redis-server for this run at $REDIS_URL" >&2
"$@"
