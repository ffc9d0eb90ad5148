"""Fixtures shared by the whole suite.

* ``demo``: the repository's demo site (site.yaml + content/) copied into a temporary
  folder and built once per session with the built-in theme; tests read it, never change it.
* ``demo_copy``: a fresh copy of the demo site, built, for tests that change or remove files.
* ``quality_site``: the demo site built once per session by the CLI for quality_util.BASE_URL
  (a GitHub Pages project path), for the browser and validator tests; read-only.
* ``chromium``: Debian's Chromium under Playwright, launched once per session (per xdist worker);
  ``browser``: the same browser for one test, every context and page the test opened closed
  after it (browser_util.borrowed).
* An autouse guard refuses network connections to anything but the loopback interface,
  so a test can talk to its own server on 127.0.0.1 but never to the internet
  (mark a test ``allow_network`` to lift it).
"""

from __future__ import annotations

import fcntl
import ipaddress
import os
import shutil
import socket
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
# tests by stage (tests/render, tests/write ...): a test imports another's helpers by its name
# (from test_jobs import synthetic_site), wherever pytest collected it from
sys.path[1:1] = sorted(str(p) for p in Path(__file__).resolve().parent.iterdir()
                       if p.is_dir() and any(p.glob("test_*.py")))

from browser_util import borrowed, chromium_browser  # noqa: E402
from helpers import build, copy_demo  # noqa: E402
from quality_util import build_demo_site  # noqa: E402

_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


# The test files that take longest under `make test` (seconds of one xdist worker, setup included,
# measured on two cores), slowest first. `--dist loadfile` hands out whole files in the order of
# the collection; xdist's own order (most tests first) left these, which hold few tests, to the end
# of the run, where a 40-70 s file on one worker kept the other idle. Started first instead, the
# many short files fill in at the end and both workers finish close together. A file missing here
# only runs later (after these, the others by number of tests, as xdist orders them).
SLOWEST_FILES = (
    "tests/index/test_flat_build.py",                          # ~85 s
    "tests/incremental/test_incremental_equals_clean.py",      # ~80 s
    "tests/commands/test_release.py",                          # ~70 s
    "tests/render/test_i18n_pages.py",                         # ~65 s
    "tests/site/test_theme_quality.py",                        # ~60 s
    "tests/deploy/test_deploy.py",                             # ~60 s
    "tests/site/test_page_look.py",                            # ~55 s
    "tests/battery/test_output_kill.py",                       # ~55 s
    "tests/commands/test_cli.py",                              # ~50 s
    "tests/site/test_screenshots.py",                          # ~50 s
    "tests/render/test_jobs.py",                               # ~50 s
    "tests/site/test_lab_browser.py",                          # ~50 s
    "tests/battery/test_config_hazards.py",                    # ~45 s
    "tests/battery/test_output_hazards.py",                    # ~40 s
    "tests/write/test_shard.py",                               # ~40 s
    "tests/commands/test_install.py",                          # ~35 s
    "tests/write/test_kill.py",                                # ~25 s
    "tests/site/test_look_browser.py",                         # ~25 s
    "tests/site/test_search_ui.py",                            # ~25 s
    "tests/incremental/test_spare.py",                         # ~20 s
    "tests/sources/test_fetch_cli.py",                         # ~20 s
    "tests/commands/test_build.py",                            # ~20 s
    "tests/site/test_record_display_browser.py",               # ~20 s
    "tests/sources/test_refresh.py",                           # ~20 s
    "tests/render/test_theme_header.py",                       # ~20 s
    "tests/commands/test_publish_shards.py",                   # ~20 s
    "tests/battery/test_config_properties.py",                 # ~15 s
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "allow_network: let this test open non-loopback connections")
    if getattr(config.option, "dist", "no") in ("loadfile", "loadscope"):
        config.option.loadscopereorder = False   # hand the files out in the order set below


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Whole files moved, each test keeping its place in its file: SLOWEST_FILES first, in that
    order, then the others by their number of tests (xdist's --loadscope-reorder)."""
    rank = {name: n for n, name in enumerate(SLOWEST_FILES)}
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    order = sorted(files, key=lambda name: (rank.get(name, len(rank)), -len(files[name]) if name not in rank else 0))
    items[:] = [item for name in order for item in files[name]]


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> object:
    """Test modules compiled once: pytest keeps each one's compiled form (its asserts rewritten) in
    __pycache__ unless bytecode writing is off, as PYTHONDONTWRITEBYTECODE (set on some machines)
    turns it off; then every worker compiled every test module again on every run (4-5 s of each
    worker's start). Writing is allowed while the tests are collected only, so nothing a test
    imports or runs writes bytecode."""
    before = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = before


def _is_local(host: object) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    host = str(host).strip("[]")
    if host in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def _no_internet(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("allow_network"):
        return
    real_getaddrinfo = socket.getaddrinfo
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
        if not _is_local(host):
            raise OSError(f"test tried to resolve {host!r}: tests must not use the network")
        return real_getaddrinfo(host, *args, **kwargs)

    def _check(sock: socket.socket, address: object) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple):
            if not _is_local(address[0]):
                raise OSError(f"test tried to connect to {address!r}: tests must not use the network")

    def connect(self, address):  # type: ignore[no-untyped-def]
        _check(self, address)
        return real_connect(self, address)

    def connect_ex(self, address):  # type: ignore[no-untyped-def]
        _check(self, address)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)


@dataclass(frozen=True)
class Demo:
    root: Path
    out: Path

    def read(self, rel: str) -> str:
        return (self.out / rel).read_text("utf-8")


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    """The demo site, built once per session. Read-only for the tests that use it."""
    root = copy_demo(tmp_path_factory.mktemp("demo") / "site")
    return Demo(root, build(root))


@pytest.fixture
def demo_copy(tmp_path: Path) -> Demo:
    """A private copy of the demo site, built, for tests that change it."""
    root = copy_demo(tmp_path / "site")
    return Demo(root, build(root))


@pytest.fixture(scope="session")
def quality_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo site (with its templates, static files and search page) built once by
    ``authorsite build --base-url quality_util.BASE_URL``, the output folder. Shared by the
    browser and validator tests, which read it and never change it."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return build_demo_site(tmp_path_factory.mktemp("quality-demo"))
    # Under xdist, built once for the run: the first worker to ask builds it in the folder the
    # workers' temporary folders share (this run's), the others wait for it and read it there.
    shared = tmp_path_factory.getbasetemp().parent / "quality-demo"
    with _exclusive(shared.with_name("quality-demo.lock")):
        if not (shared / "out").is_dir():
            work = shared.with_name("quality-demo.partial")
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            out = build_demo_site(work)
            os.replace(work, shared)
            assert out == work / "out"
    return shared / "out"


@contextmanager
def _exclusive(lock: Path) -> Iterator[None]:
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@pytest.fixture(scope="session")
def chromium():  # noqa: ANN201 - playwright Browser
    """One Chromium for the session (each xdist worker has its own): a launch costs 1.5-2.5 s
    and the tests make their own pages, each ``browser.new_page()`` in a fresh context (no
    cookies, storage or cache shared). Fixtures wider than a test take this one; tests take
    ``browser``. While it runs, Playwright's sync API holds this thread's asyncio event loop:
    a test that needs ``asyncio.run`` must call it in another thread."""
    with chromium_browser() as b:
        yield b


@pytest.fixture
def browser(chromium):  # noqa: ANN001, ANN201
    """The session's Chromium for one test; what the test opened is closed after it."""
    with borrowed(chromium) as b:
        yield b
