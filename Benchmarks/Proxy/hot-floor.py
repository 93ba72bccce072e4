#!/usr/bin/env python3
"""The proxy's hot path against its framework's floor, in one run (issue 38).

One signed thumbor URL (`fit-in/256x256/filters:quality(80)/` of a 2048x1536 photo, the hot row
of ../shared/anchors/vs-go-proxies) is answered from `magpie proxy`'s memory cache; beside it,
Hummingbird's minimal handler (`MagpieBenchmarks hot-floor`) answers the same bytes with their
content type and nothing else ("floor"), or with the proxy's own headers too ("headers": what the
framework takes to send them, apart from what the proxy's code takes to make them), and imagor answers the same URL from its result storage when its
binary is at hand. Each server runs alone, pinned to SERVER_CPUS, under the same wrk load; the
rounds alternate the servers so that the machine's drift falls on all of them.

  usage: Benchmarks/Proxy/hot-floor.py MAGPIE_BINARY BENCHMARKS_BINARY
  env:   SECONDS_PER_RUN (20), WARMUP_SECONDS (2), ROUNDS (3), SERVER_CPUS (0,1), WRK_THREADS (2),
         WRK_CONNECTIONS (8), SERVERS (magpie,floor,headers,imagor), IMAGOR_BIN
         (/tmp/magpie-anchors/bin/imagor, unpacked by vs-go-proxies), MAGPIE_ARGUMENTS (added to
         the proxy's), PERF_OUTPUT (a folder: `perf record -g` of each server in each round)

Prints, per run, req/s, p50/p99 (ms), CPU per request (us) and peak RSS; last, the medians and
magpie's rate over the floor's and over imagor's.
"""
import base64, functools, hashlib, hmac, http.server, os, re, shutil, socket, statistics, subprocess, sys, tempfile, threading
import time, urllib.error, urllib.request

magpie, benchmarks = (os.path.abspath(a) for a in sys.argv[1:3])
SECONDS = int(os.environ.get("SECONDS_PER_RUN", 20))
WARMUP = int(os.environ.get("WARMUP_SECONDS", 2))
ROUNDS = int(os.environ.get("ROUNDS", 3))
CPUS = os.environ.get("SERVER_CPUS", "0,1")
THREADS = int(os.environ.get("WRK_THREADS", 2))
CONNECTIONS = int(os.environ.get("WRK_CONNECTIONS", 8))
SERVERS = os.environ.get("SERVERS", "magpie,floor,headers,imagor").split(",")
IMAGOR = os.environ.get("IMAGOR_BIN", "/tmp/magpie-anchors/bin/imagor")
PERF = os.environ.get("PERF_OUTPUT")
HZ = os.sysconf("SC_CLK_TCK")
THUMBOR_KEY = "hot-floor-" + os.urandom(8).hex()
direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
work = tempfile.mkdtemp(prefix="magpie-hot-floor-")

if "imagor" in SERVERS and not os.access(IMAGOR, os.X_OK):
    print(f"no imagor at {IMAGOR} (run ../shared/anchors/vs-go-proxies once to unpack it): left out", flush=True)
    SERVERS.remove("imagor")

photos = os.path.join(tempfile.gettempdir(), "magpie-bench-photos")
if not os.path.exists(os.path.join(photos, "p003.jpg")):
    tools = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/tools/make-photos")
    subprocess.run([sys.executable, tools, photos, "120"], check=True, stdout=subprocess.DEVNULL)


def unused_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class QuietFiles(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *_):
        pass


origin = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietFiles, directory=photos))
threading.Thread(target=origin.serve_forever, daemon=True).start()
source = f"http://127.0.0.1:{origin.server_address[1]}/p003.jpg"
unsigned = "fit-in/256x256/filters:quality(80)/" + source
signature = base64.urlsafe_b64encode(hmac.new(THUMBOR_KEY.encode(), unsigned.encode(), hashlib.sha1).digest()).decode()
path = f"/{signature}/{unsigned}"


def get(url, all_headers=False):
    try:
        with direct.open(url, timeout=30) as r:
            return r.status, (r.headers if all_headers else r.headers.get("Content-Type", "")), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read()


def pinned(command):
    return ["taskset", "-c", CPUS] + command


def started(command, env=None, announces=True):
    """Starts a server; returns (process, port). `announces`: it prints 'listening on ...:PORT/'."""
    log = open(os.path.join(work, os.path.basename(command[0]) + ".log"), "a")
    if announces:
        process = subprocess.Popen(pinned(command), stdout=subprocess.PIPE, stderr=log, text=True, env=env, cwd=work)
        for line in process.stdout:
            found = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", line)
            if found:
                threading.Thread(target=process.stdout.read, daemon=True).start()
                return process, int(found.group(1))
        raise RuntimeError(f"{command[0]} did not start (see {log.name})")
    port = env["PORT"]
    process = subprocess.Popen(pinned(command), stdout=log, stderr=subprocess.STDOUT, env=env, cwd=work)
    for _ in range(300):
        try:
            if get(f"http://127.0.0.1:{port}/healthcheck")[0] == 200:
                return process, port
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{command[0]} did not start (see {log.name})")


def server(name, round_number):
    if name == "magpie":
        cache = os.path.join(work, f"magpie-cache-{round_number}")
        return started([magpie, "proxy", "--host", "127.0.0.1", "--port", "0", "--thumbor-key", THUMBOR_KEY,
                        "--allow-addresses", "loopback", "--log-level", "warning", "--cache-dir", cache]
                       + os.environ.get("MAGPIE_ARGUMENTS", "").split())
    if name == "floor":
        return started([benchmarks, "hot-floor", answer_file, answer_type])
    if name == "headers":
        return started([benchmarks, "hot-floor", answer_file, answer_type, header_file])
    port = unused_port()
    env = dict(os.environ, IMAGOR_SECRET=THUMBOR_KEY, BIND=f"127.0.0.1:{port}", PORT=str(port),
               HTTP_LOADER_ALLOWED_SOURCES="127.0.0.1:*",
               FILE_RESULT_STORAGE_BASE_DIR=os.path.join(work, f"imagor-results-{round_number}"))
    return started([IMAGOR], env=env, announces=False)


def stop(process):
    process.terminate()
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def machine_idle_seconds():
    with open("/proc/stat") as f:
        fields = f.readline().split()
    return (int(fields[4]) + int(fields[5])) / HZ


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"^VmHWM:\s+(\d+)", f.read(), re.M).group(1)) / 1024


WRK_SCRIPT = os.path.join(work, "one-url.lua")
with open(WRK_SCRIPT, "w") as f:
    f.write(f'request = function() return wrk.format("GET", "{path}") end\n'
            'done = function(summary, latency, requests)\n'
            '  local e = summary.errors\n'
            '  io.write(string.format("RESULT %d %d %d %d %d\\n", summary.requests, summary.duration,\n'
            '    latency:percentile(50), latency:percentile(99), e.status + e.connect + e.read + e.write + e.timeout))\n'
            'end\n')


def load(port, seconds):
    out = subprocess.run(pinned(["wrk", f"-t{THREADS}", f"-c{CONNECTIONS}", f"-d{seconds}s", "-s", WRK_SCRIPT,
                                 f"http://127.0.0.1:{port}"]), capture_output=True, text=True).stdout
    found = re.search(r"^RESULT (\d+) (\d+) (\d+) (\d+) (\d+)$", out, re.M)
    if not found:
        raise RuntimeError("wrk gave no result:\n" + out)
    return list(map(int, found.groups()))


# The floor answers what the proxy answers: its bytes and content type, read from the proxy.
first, port = server("magpie", 0)
get(f"http://127.0.0.1:{port}{path}")
status, answer_headers, answer = get(f"http://127.0.0.1:{port}{path}", all_headers=True)
stop(first)
if status != 200:
    sys.exit(f"magpie answered {status}: {answer[:200]!r}")
answer_type = answer_headers["Content-Type"]
answer_file = os.path.join(work, "answer")
with open(answer_file, "wb") as f:
    f.write(answer)
# The hit's headers but those the framework writes itself.
header_file = os.path.join(work, "headers")
with open(header_file, "w") as f:
    for name, value in answer_headers.items():
        if name.lower() not in ("content-type", "content-length", "date", "connection", "transfer-encoding"):
            f.write(f"{name}: {value}\n")
print(f"one URL, {len(answer)} bytes of {answer_type}; wrk -t{THREADS} -c{CONNECTIONS} -d{SECONDS}s (+{WARMUP}s warm-up), "
      f"servers and wrk on CPUs {CPUS}; {ROUNDS} round(s); servers {', '.join(SERVERS)}", flush=True)

results = {name: [] for name in SERVERS}
for round_number in range(1, ROUNDS + 1):
    order = SERVERS if round_number % 2 else list(reversed(SERVERS))
    for name in order:
        process, port = server(name, round_number)
        try:
            status, _, body = get(f"http://127.0.0.1:{port}{path}")
            status, _, body = get(f"http://127.0.0.1:{port}{path}")  # the second is the hit
            if status != 200 or not body:
                raise RuntimeError(f"{name} answered {status}")
            load(port, WARMUP)
            perf = None
            if PERF:
                os.makedirs(PERF, exist_ok=True)
                perf = subprocess.Popen(["perf", "record", "-g", "-F", "499", "-p", str(process.pid), "-o",
                                         os.path.join(PERF, f"{name}-hot-{round_number}.data")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            before, idle_before = cpu_seconds(process.pid), machine_idle_seconds()
            requests, duration, p50, p99, errors = load(port, SECONDS)
            cpu, idle = cpu_seconds(process.pid) - before, machine_idle_seconds() - idle_before
            if perf:
                perf.send_signal(2)
                perf.wait()
            rate = requests / (duration / 1e6)
            row = dict(rate=rate, p50=p50 / 1000, p99=p99 / 1000, cpu_us=cpu / requests * 1e6, rss=peak_rss_mb(process.pid),
                       errors=errors, size=len(body), idle=idle / (duration / 1e6))
            results[name].append(row)
            print(f"round {round_number} {name:7} {rate:9.0f} req/s  p50 {row['p50']:.2f} ms  p99 {row['p99']:.2f} ms  "
                  f"{row['cpu_us']:6.1f} us CPU/request  {row['idle']:.2f} cores idle  peak {row['rss']:.0f} MB  {len(body)} bytes  errors {errors}", flush=True)
        finally:
            stop(process)

median = {name: {key: statistics.median(r[key] for r in rows) for key in ("rate", "p50", "p99", "cpu_us", "rss")}
          for name, rows in results.items()}
print("medians:")
for name, m in median.items():
    print(f"  {name:7} {m['rate']:9.0f} req/s  p50 {m['p50']:.2f} ms  p99 {m['p99']:.2f} ms  {m['cpu_us']:6.1f} us CPU/request  "
          f"peak {m['rss']:.0f} MB")
if "magpie" in median:
    for peer in (n for n in median if n != "magpie"):
        pairs = [m["rate"] / p["rate"] for m, p in zip(results["magpie"], results[peer])]
        print(f"magpie/{peer}: {median['magpie']['rate'] / median[peer]['rate']:.2f} (rounds: "
              f"{', '.join(f'{r:.2f}' for r in pairs)})")
origin.shutdown()
shutil.rmtree(work, ignore_errors=True)
