#!/usr/bin/env bash
# Two `magpie proxy` binaries on one imgproxy URL shape, alternated in one sitting (issue 53):
#
#   Benchmarks/Proxy/binaries-alternated.sh BEFORE_BINARY AFTER_BINARY [ROUNDS]
#
# env: OPTIONS (rs:fill:300:200/bl:2), FORMAT (webp), SECONDS_EACH (20), HOT=1 for one URL
# answered from memory instead of a new source a request (10 s a run then).
# The photos are vs-go-proxies' (../shared/tools/make-photos, 120, in /tmp/magpie-bench-photos),
# served by one nginx; each server runs alone, --no-disk-cache, pinned to CPUs 0,1 with wrk.
# Prints each run's requests, req/s, p50 ms, non-2xx and peak RSS (VmHWM), and the status and
# size of its first answer (the same bytes from both binaries where nothing should change).
set -u
before=${1:?usage: binaries-alternated.sh BEFORE AFTER [ROUNDS]}; after=${2:?}; rounds=${3:-2}
options=${OPTIONS:-rs:fill:300:200/bl:2}; format=${FORMAT:-webp}; seconds=${SECONDS_EACH:-20}
photos=/tmp/magpie-bench-photos
[ -f $photos/p119.jpg ] || python3 "$(dirname "$0")/../../../shared/tools/make-photos" $photos 120 > /dev/null
work=$(mktemp -d /tmp/binaries-alternated.XXXX)
port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
origin=$(port)
cat > $work/nginx.conf <<CONF
daemon off; worker_processes 1; pid $work/nginx.pid; error_log $work/nginx.err;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:$origin; root $photos; } }
CONF
nginx -c $work/nginx.conf -p $work & nginx=$!
trap 'kill $nginx 2> /dev/null' EXIT
sleep 0.5
source_of() { printf 'http%%3A%%2F%%2F127.0.0.1%%3A%s%%2F%s' $origin "$1"; }
cat > $work/walk.lua <<'LUA'
local threads = {}
function setup(thread) table.insert(threads, thread); thread:set("tid", #threads) end
function init(args) paths = {}; for line in io.lines(args[1]) do paths[#paths + 1] = line end; i = tid - 2 end
request = function() i = i + 2; if i > #paths then i = tid end; return wrk.format("GET", paths[i]) end
done = function(s, latency, r)
  io.write(string.format("%d requests, %.1f req/s, p50 %.1f ms, %d non-2xx", s.requests, s.requests / (s.duration / 1e6),
    latency:percentile(50) / 1000, s.errors.status))
end
LUA
run=0
for round in $(seq 1 $rounds); do
    for binary in "$before" "$after"; do
        run=$((run + 1))
        if [ "${HOT:-0}" = 1 ]; then
            echo "/insecure/$options/plain/$(source_of p003.jpg)@$format" > $work/urls$run.txt
            seconds_now=10
        else
            for n in $(seq 0 59999); do printf '/insecure/%s/plain/%s%%3Fv%%3D%s-%s@%s\n' "$options" "$(source_of p$(printf %03d $((n % 120))).jpg)" $run $n $format; done > $work/urls$run.txt
            seconds_now=$seconds
        fi
        listen=$(port)
        taskset -c 0,1 "$binary" proxy --host 127.0.0.1 --port $listen --no-disk-cache --allow-unsigned --allow-addresses loopback \
            --log-level warning > $work/proxy$run.log 2>&1 & server=$!
        for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$listen/health" && break; sleep 0.1; done
        first=$(curl -s -o /dev/null -w "%{http_code} %{size_download} bytes" "http://127.0.0.1:$listen$(head -1 $work/urls$run.txt)")
        result=$(taskset -c 0,1 wrk -t2 -c8 -d${seconds_now}s -s $work/walk.lua "http://127.0.0.1:$listen" -- $work/urls$run.txt | tail -1)
        peak=$(awk '/VmHWM/ { print int($2 / 1024) }' /proc/$server/status)
        kill $server; wait $server 2> /dev/null
        echo "round $round $binary: $result, peak $peak MB, first answer $first"
    done
done
