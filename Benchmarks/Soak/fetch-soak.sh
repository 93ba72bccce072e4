#!/usr/bin/env bash
# Sustained load through one release `magpie fetch` process, the way a crawler runs it: THUMBS
# distinct URLs of the photos in PHOTO_DIR as 256 px thumbnails and, every eleventh line,
# PROCESSED distinct URLs decoded at full size and processed (fit in 2048 px, Gaussian blur 4,
# rounded corners 32), nothing cached, served from loopback by `magpie serve`. Prints the
# process's resident memory every 10 seconds and GNU time's summary at the end.
#
#   swift build -c release --product magpie && ../shared/tools/make-photos /tmp/photos 200
#   Benchmarks/Soak/fetch-soak.sh .build/release/magpie /tmp/photos 20000 2000
set -euo pipefail
magpie=$1 photos=$2 thumbs=${3:-20000} processed=${4:-2000}
work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT

"$magpie" serve "$photos" --port 0 >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do
    port=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/server.log" | head -1 | sed 's/.*://') || true
    [ -n "$port" ] && break
    sleep 0.1
done
mapfile -t files < <(cd "$photos" && ls)
: >"$work/list.txt"
line=0
for ((i = 0; i < thumbs + processed; i++)); do
    file=${files[$((i % ${#files[@]}))]}
    if ((i % 11 == 10 && line < processed)); then
        echo "http://127.0.0.1:$port/$file?soak=$i --process resize:2048x2048,blur:4,round:32" >>"$work/list.txt"
        line=$((line + 1))
    else
        echo "http://127.0.0.1:$port/$file?soak=$i" >>"$work/list.txt"
    fi
done
echo "$(grep -c -- --process "$work/list.txt") processed, $(grep -vc -- --process "$work/list.txt") thumbnails"

/usr/bin/time -v "$magpie" fetch -i "$work/list.txt" --thumbnail 256x256 --no-cache --json \
    >"$work/results.jsonl" 2>"$work/fetch.err" &
timer=$!
sleep 1
fetch=$(pgrep -P $timer)
start=$SECONDS
while kill -0 "$fetch" 2>/dev/null; do
    rss=$(awk '/VmRSS/ {print $2}' /proc/$fetch/status 2>/dev/null || true)
    done_count=$(wc -l <"$work/results.jsonl")
    [ -n "$rss" ] && echo "t=$((SECONDS - start))s loads=$done_count rss=$((rss / 1024))MB"
    sleep 10
done
wait $timer || echo "magpie fetch exited with $?"
grep -E "Maximum resident|Elapsed|Exit status" "$work/fetch.err"
echo "failed: $(grep -c '"status":"error"' "$work/results.jsonl" || true) of $(wc -l <"$work/results.jsonl")"
python3 - "$work/results.jsonl" <<'PYTHON'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
larger = sum(1 for row in rows if max(row.get("width", 0), row.get("height", 0)) > 256)
print(f"{larger} results larger than 256 px (the processed ones), {len(rows) - larger} within 256 px")
PYTHON
tail -5 "$work/fetch.err" | grep -v -E "Maximum resident|Elapsed|Exit status|^\s" || true
