#!/bin/bash
# One imgproxy URL from the proxy's memory cache, hammered by wrk (one thread, 8 connections,
# 10 s), optionally under `perf record -g` of the proxy process, to see where a memory hit's
# time goes. Uses the photos compare.py makes (.build/bench-photos).
# usage: Benchmarks/Proxy/hot-profile.sh [MAGPIE_BINARY] [PERF_OUTPUT]
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$ROOT/.build/release/magpie}
OUT=${2:-}
PHOTOS=$ROOT/.build/bench-photos
WORK=$(mktemp -d)
trap 'kill $PROXY $ORIGIN 2>/dev/null || true; rm -rf "$WORK"' EXIT
"$BIN" serve "$PHOTOS" --port 0 > "$WORK/origin.out" 2>&1 &
ORIGIN=$!
"$BIN" proxy --port 0 --allow-unsigned --allow-addresses loopback --cache-dir "$WORK/cache" --queue 1000 --log-level warning > "$WORK/proxy.out" 2>&1 &
PROXY=$!
for _ in $(seq 50); do
  grep -q '127.0.0.1:' "$WORK/origin.out" && grep -q '127.0.0.1:' "$WORK/proxy.out" && break
  sleep 0.1
done
ORIGIN_PORT=$(grep -o '127.0.0.1:[0-9]*' "$WORK/origin.out" | head -1 | cut -d: -f2)
PROXY_PORT=$(grep -o '127.0.0.1:[0-9]*' "$WORK/proxy.out" | head -1 | cut -d: -f2)
NAME=$(ls "$PHOTOS" | grep '\.jpg$' | head -1)
URL="http://127.0.0.1:$PROXY_PORT/unsafe/s:256:256/q:80/f:jpeg/plain/http%3A%2F%2F127.0.0.1%3A$ORIGIN_PORT%2F$NAME"
curl -sf -o /dev/null "$URL"
if [ -n "$OUT" ]; then
  perf record -g -F 999 -p "$PROXY" -o "$OUT" -- sleep 8 > /dev/null 2>&1 &
  PERF=$!
fi
wrk -t1 -c8 -d10s "$URL" | grep Requests/sec
if [ -n "$OUT" ]; then wait $PERF; fi
