#!/usr/bin/env bash
# Two `magpie proxy` binaries on one URL shape, alternated in one sitting (issue 53):
#
#   Benchmarks/Proxy/binaries-alternated.sh BEFORE_BINARY AFTER_BINARY [ROUNDS]
#
# env: OPTIONS (rs:fill:300:200/bl:2), FORMAT (webp), SECONDS_EACH (20), HOT=1 for one URL
# answered from memory instead of a new source a request (10 s a run then); GRAMMAR=thumbor for
# thumbor's URLs, OPTIONS then defaulting to vs-go-proxies' cold thumbor row's
# (fit-in/256x256/filters:quality(80)) and FORMAT unused.
# The photos are vs-go-proxies' (../shared/tools/make-photos, 120, in /tmp/magpie-bench-photos),
# served by one nginx; each server runs alone, --no-disk-cache, pinned to CPUs 0,1 with wrk.
# Prints each run's requests, req/s, p50 ms, non-2xx and peak RSS (VmHWM), and the status and
# size of its first answer (the same bytes from both binaries where nothing should change).
set -u
before=${1:?usage: binaries-alternated.sh BEFORE AFTER [ROUNDS]}; after=${2:?}; rounds=${3:-2}
grammar=${GRAMMAR:-imgproxy}; format=${FORMAT:-webp}; seconds=${SECONDS_EACH:-20}
if [ "$grammar" = thumbor ]; then options=${OPTIONS:-fit-in/256x256/filters:quality(80)}; else options=${OPTIONS:-rs:fill:300:200/bl:2}; fi
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
# The request paths of a run: one source, or 60,000 new ones over the 120 photos.
paths() {  # RUN COUNT
    python3 - "$grammar" "$options" "$format" $origin "$1" "$2" <<'PY'
import sys
grammar, options, format, origin, run, count = sys.argv[1:7]
for n in range(int(count)):
    source = f"http%3A%2F%2F127.0.0.1%3A{origin}%2F" + (f"p{n % 120:03d}.jpg%3Fv%3D{run}-{n}" if int(count) > 1 else "p003.jpg")
    print(f"/unsafe/{options}/{source}" if grammar == "thumbor" else f"/insecure/{options}/plain/{source}@{format}")
PY
}
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
        if [ "${HOT:-0}" = 1 ]; then paths $run 1 > $work/urls$run.txt; seconds_now=10
        else paths $run 60000 > $work/urls$run.txt; seconds_now=$seconds; fi
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
