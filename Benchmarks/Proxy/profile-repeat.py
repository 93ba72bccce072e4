#!/usr/bin/env python3
"""Profiles the repeat row of ../shared/anchors/vs-go-proxies (issue 38): one 2048x1536 photo,
a fresh `?r=N` on its URL each request, `rs:fill:256:256/q:80/...@jpg`, so each request downloads,
decodes, resizes and encodes. Runs `magpie proxy` and imgproxy in turn on the same signed URLs,
pinned to the same cores, with wrk's load, and samples each server with `perf record` while it
serves. Prints each server's rate and CPU per request, and writes each profile's report.

    python3 Benchmarks/Proxy/profile-repeat.py .build/release/magpie [OUT_FOLDER]

env: SECONDS_PER_SERVER (15), WARMUP_SECONDS (3), IMGPROXY_BIN (the anchors' build, unpacked by
vs-go-proxies into /tmp/magpie-anchors), SERVERS (magpie,imgproxy), PERF_FREQUENCY (400; 0 runs
without perf, for the rates and CPU as they are unobserved).
Needs nginx, wrk, perf (linux-perf) and the photos of ../shared/tools/make-photos.
"""
import base64, hashlib, hmac, os, re, socket, subprocess, sys, tempfile, time, urllib.parse, urllib.request

magpie = os.path.abspath(sys.argv[1])
out = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="profile-repeat-"))
os.makedirs(out, exist_ok=True)
seconds = int(os.environ.get("SECONDS_PER_SERVER", "15"))
warmup = int(os.environ.get("WARMUP_SECONDS", "3"))
imgproxy = os.environ.get("IMGPROXY_BIN", "/tmp/magpie-anchors/bin/imgproxy")
servers = os.environ.get("SERVERS", "magpie,imgproxy").split(",")
frequency = os.environ.get("PERF_FREQUENCY", "400")
here = os.path.dirname(os.path.abspath(__file__))
photos = os.path.join(tempfile.gettempdir(), "magpie-bench-photos")
if not os.path.exists(os.path.join(photos, "p003.jpg")):
    subprocess.run([sys.executable, os.path.join(here, "../../../shared/tools/make-photos"), photos, "120"], check=True,
                   stdout=subprocess.DEVNULL)
key, salt = os.urandom(32).hex(), os.urandom(16).hex()
no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def signed(source):
    path = "/rs:fill:256:256/q:80/plain/" + urllib.parse.quote(source, safe="") + "@jpg"
    digest = hmac.new(bytes.fromhex(key), bytes.fromhex(salt) + path.encode(), hashlib.sha256).digest()
    return "/" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode() + path


def machine_idle_seconds():
    with open("/proc/stat") as f:
        fields = f.readline().split()
    return (int(fields[4]) + int(fields[5])) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


origin_port = free_port()
with open(os.path.join(out, "nginx.conf"), "w") as f:
    f.write(f"""worker_processes 1; pid {out}/nginx.pid; error_log {out}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{ access_log off; sendfile on; keepalive_requests 100000; types {{ image/jpeg jpg; }}
  server {{ listen 127.0.0.1:{origin_port}; location /photos/ {{ alias {photos}/; }} }} }}
""")
subprocess.run(["nginx", "-c", os.path.join(out, "nginx.conf")], check=True)
lua = os.path.join(out, "walk.lua")
with open(lua, "w") as f:
    f.write("""
local paths, threads = {}, {}
function setup(thread) table.insert(threads, thread); thread:set("id", #threads) end
function init(args)
  for line in io.lines(args[1]) do table.insert(paths, line) end
  position = tonumber(wrk.thread:get("id"))
end
function request()
  position = position + 2
  if position > #paths then position = position - #paths end
  return wrk.format("GET", paths[position])
end
""")

try:
    for server in servers:
        port = free_port()
        base = f"http://127.0.0.1:{origin_port}/photos/p003.jpg"
        # The warm-up walks URLs of its own: wrk starts each run at the list's head, and a
        # measured run that began with the warm-up's URLs answered its first few hundred from
        # the proxy's result memory (imgproxy keeps none), a fifth more requests than it made.
        paths, warm_paths = (os.path.join(out, f"{name}-{server}.txt") for name in ("paths", "warm-paths"))
        for name, tag in ((paths, server), (warm_paths, f"{server}-warm")):
            with open(name, "w") as f:
                for n in range(60000):
                    f.write(signed(f"{base}?r={tag}-{n}") + "\n")
        log = open(os.path.join(out, f"{server}.log"), "w")
        if server == "magpie":
            command = [magpie, "proxy", "--host", "127.0.0.1", "--port", str(port), "--signing-key", key, "--signing-salt", salt,
                       "--allow-addresses", "loopback", "--log-level", "warning", "--no-disk-cache"]
            command += os.environ.get("MAGPIE_ARGUMENTS", "").split()
            environment = dict(os.environ)
        else:
            command = [imgproxy]
            environment = dict(os.environ, IMGPROXY_KEY=key, IMGPROXY_SALT=salt, IMGPROXY_BIND=f"127.0.0.1:{port}",
                               IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES="true", IMGPROXY_LOG_LEVEL="warn")
        process = subprocess.Popen(["taskset", "-c", "0,1"] + command, env=environment, stdout=log, stderr=subprocess.STDOUT)
        try:
            for _ in range(200):
                try:
                    no_proxy.open(f"http://127.0.0.1:{port}/health", timeout=1).read()
                    break
                except OSError:
                    time.sleep(0.05)
            target = [f"http://127.0.0.1:{port}", "--", paths]
            wrk = ["wrk", "-t2", "-c8", "-s", lua]
            subprocess.run(wrk + ["-d", f"{warmup}s", f"http://127.0.0.1:{port}", "--", warm_paths], stdout=subprocess.DEVNULL, check=True)
            data = os.path.join(out, f"perf-{server}.data")
            perf = None if frequency == "0" else subprocess.Popen(["perf", "record", "-q", "-F", frequency, "-g", "--call-graph", os.environ.get("PERF_CALL_GRAPH", "dwarf,32768"),
                                     "-p", str(process.pid), "-o", data], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
            before, idle_before = cpu_seconds(process.pid), machine_idle_seconds()
            result = subprocess.run(wrk + ["-d", f"{seconds}s", "--latency"] + target, capture_output=True, text=True, check=True).stdout
            used, idle = cpu_seconds(process.pid) - before, machine_idle_seconds() - idle_before
            if perf:
                perf.send_signal(2)
                perf.wait()
            rate = float(re.search(r"Requests/sec:\s+([\d.]+)", result).group(1))
            requests = int(re.search(r"(\d+) requests in", result).group(1))
            errors = re.search(r"Non-2xx or 3xx responses: (\d+)", result)
            p99 = re.search(r"99%\s+([\d.]+\w+)", result).group(1)
            print(f"{server}: {rate:.1f} req/s, p99 {p99}, {1000 * used / max(requests, 1):.2f} ms CPU a request, "
                  f"{used / seconds:.2f} cores busy, the machine {idle / seconds:.2f} cores idle{', ' + errors.group(1) + ' non-2xx' if errors else ''}", flush=True)
            if not perf:
                continue
            with open(os.path.join(out, f"report-{server}.txt"), "w") as report:
                subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "dso,symbol", "--percent-limit", "0.5",
                                "--stdio", "-g", "none"], stdout=report, stderr=subprocess.DEVNULL)
        finally:
            process.terminate()
            process.wait()
finally:
    with open(os.path.join(out, "nginx.pid")) as f:
        os.kill(int(f.read()), 15)
print(f"profiles and reports in {out}")
