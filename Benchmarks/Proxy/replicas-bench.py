#!/usr/bin/env python3
"""Replicas and the shared store (issue 35), in one run on this machine.

    replicas-bench.py MAGPIE_BINARY PHOTO_DIR

Serves PHOTO_DIR (real-size photos from ../shared/tools/make-photos) with Python's file server
and starts SeaweedFS on loopback (telemetry off) as the shared store. 480 distinct URLs (every
photo with eight option sets), each requested once by eight client threads (keep-alive
connections), so no answer comes from a replica's memory:

1. one replica, by where the result comes from: rendered (an empty disk and store), read from
   the local disk (the same disk, the store off), read from the store (an empty disk);
2. one, two and three replicas behind nginx (the Running replicas article's block, a consistent
   hash on the source), each run cold (fresh disks, a fresh prefix in the bucket).

Prints, per row, requests per second, p50 and p99 in milliseconds as the clients saw them, and
what the replicas' /metrics say they did (renders, store hits).
"""
import http.client, os, re, shutil, socket, statistics, subprocess, sys, tempfile, threading, time, urllib.parse, urllib.request
import seaweed_store

binary, photos = sys.argv[1], sys.argv[2]
names = sorted(n for n in os.listdir(photos) if n.endswith(".jpg"))
OPTIONS = ["rs:fill:256:256/q:80", "rs:fit:480:480", "rs:fill:128:96", "rs:fit:800:800/q:70",
           "rs:fill:320:320/f:webp", "rs:fit:200:200/q:60", "rs:fill:640:360", "rs:fit:1024:1024/q:75"]
children = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, limit=60):
    for _ in range(limit * 20):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


origin_port = free_port()
children.append(subprocess.Popen([sys.executable, "-m", "http.server", str(origin_port), "--bind", "127.0.0.1", "--directory", photos],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
store_dir = tempfile.mkdtemp(prefix="replicas-store-")
keys = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench-secret"}
store, ports = seaweed_store.start(["results"], store_dir, keys)
children.append(store)
wait_listening(origin_port)
paths = [f"/unsafe/{options}/plain/" + urllib.parse.quote(f"http://127.0.0.1:{origin_port}/{name}", safe="")
         for name in names for options in OPTIONS]


def replica(cache, prefix=None):
    environment = dict(os.environ, **keys)
    if prefix:
        environment.update(MAGPIE_STORE_S3_BUCKET="results", MAGPIE_STORE_S3_PREFIX=prefix,
                           IMGPROXY_S3_ENDPOINT=f"http://127.0.0.1:{ports['s3.port']}")
    process = subprocess.Popen([binary, "proxy", "--port", "0", "--allow-unsigned", "--allow-addresses", "loopback",
                                "--cache-dir", cache, "--log-level", "warning"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=environment)
    for line in process.stdout:
        match = re.search(r"127\.0\.0\.1:(\d+)/", line)
        if match:
            children.append(process)
            return process, int(match.group(1))
    raise SystemExit("the replica did not start")


def stop(process):
    process.terminate()
    process.wait()


def metric(port, name, label=""):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30).read().decode()
    total = 0.0
    for row in text.splitlines():
        sample = row.split(" ")
        if not row.startswith("#") and len(sample) >= 2 and (sample[0] == name or sample[0].startswith(name + "{")) and label in sample[0]:
            total += float(sample[1])
    return total


def run(port, urls, clients=8):
    """Every URL once; (requests per second, p50 ms, p99 ms, failures)."""
    pending = list(reversed(urls))
    lock = threading.Lock()
    times, failures = [], []

    def client():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        while True:
            with lock:
                if not pending:
                    return
                path = pending.pop()
            start = time.perf_counter()
            try:
                connection.request("GET", path)
                response = connection.getresponse()
                response.read()
                status = response.status
            except Exception:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                status = 0
            took = time.perf_counter() - start
            with lock:
                times.append(took)
                if status != 200:
                    failures.append(status)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    times.sort()
    return len(urls) / wall, 1000 * statistics.median(times), 1000 * times[int(len(times) * 0.99) - 1], len(failures)


def settle(replica_ports, writes):
    """Waits until the replicas' uploads to the store are done."""
    for _ in range(600):
        if sum(metric(p, "magpie_shared_store_total", 'outcome="written"') for p in replica_ports) >= writes:
            return
        time.sleep(0.1)


def row(label, result, extra):
    rate, p50, p99, failed = result
    print(f"| {label} | {rate:.1f} | {p50:.1f} | {p99:.1f} | {failed} | {extra} |", flush=True)


scratch = tempfile.mkdtemp(prefix="replicas-bench-")
try:
    print(f"{len(paths)} URLs ({len(names)} photos x {len(OPTIONS)} option sets), 8 clients, each URL once per row\n")
    print("| where the result comes from (one replica) | req/s | p50 ms | p99 ms | failed | the replica's count |")
    print("|---|---|---|---|---|---|")
    disk = os.path.join(scratch, "disk")
    process, port = replica(disk, prefix="where/")
    result = run(port, paths)
    settle([port], len(paths))
    row("rendered (empty disk and store)", result, f"{metric(port, 'magpie_variants_stored_total'):.0f} renders")
    stop(process)
    process, port = replica(disk)
    row("local disk (the store off)", run(port, paths), f"{metric(port, 'magpie_variants_stored_total'):.0f} renders")
    stop(process)
    process, port = replica(os.path.join(scratch, "empty"), prefix="where/")
    result = run(port, paths)
    hits = metric(port, "magpie_shared_store_total", 'outcome="hit"')
    row("shared store (empty disk)", result, f"{metric(port, 'magpie_variants_stored_total'):.0f} renders, {hits:.0f} store hits")
    stop(process)

    print("\n| replicas behind nginx, cold | req/s | p50 ms | p99 ms | failed | renders in all |")
    print("|---|---|---|---|---|---|")
    nginx_dir = os.path.join(scratch, "nginx")
    for count in [1, 2, 3]:
        started = [replica(os.path.join(scratch, f"n{count}-{i}"), prefix=f"n{count}/") for i in range(count)]
        nginx_port = free_port()
        os.makedirs(os.path.join(nginx_dir, "tmp"), exist_ok=True)
        servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=10s;" for _, p in started)
        with open(os.path.join(nginx_dir, "nginx.conf"), "w") as conf:
            conf.write(f"""daemon off; worker_processes 1; pid {nginx_dir}/nginx.pid; error_log {nginx_dir}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {nginx_dir}/tmp; proxy_temp_path {nginx_dir}/tmp; fastcgi_temp_path {nginx_dir}/tmp;
    uwsgi_temp_path {nginx_dir}/tmp; scgi_temp_path {nginx_dir}/tmp;
    map $request_uri $magpie_source {{
        "~^/[^/]+/(?:[^/?]*:[^/?]*/)*(?<source>[^?]+)" $source;
        default $request_uri;
    }}
    upstream magpie {{
        hash $magpie_source consistent;
{servers}
        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{nginx_port};
        location / {{
            proxy_pass http://magpie;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_next_upstream error timeout;
            proxy_next_upstream_tries 2;
        }}
    }}
}}
""")
        nginx = subprocess.Popen(["nginx", "-c", os.path.join(nginx_dir, "nginx.conf"), "-p", nginx_dir],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_listening(nginx_port)
        result = run(nginx_port, paths)
        renders = sum(metric(p, "magpie_variants_stored_total") for _, p in started)
        row(f"{count}", result, f"{renders:.0f}")
        nginx.terminate()
        nginx.wait()
        for process, _ in started:
            stop(process)
finally:
    for child in children:
        if child.poll() is None:
            child.kill()
            child.wait()
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.rmtree(store_dir, ignore_errors=True)
