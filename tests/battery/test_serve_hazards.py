"""The preview server (generator.serve.server) against hostile clients and states: battery section E,
the cases tests/serve/test_serve.py does not already cover (E5-E8, E10, E11).

The preview server runs as ``authorsite serve --port 0`` in a subprocess whose stderr
goes to a file, so a flood of tracebacks could neither block it nor go unseen; its
thread count is read from /proc.
"""

from __future__ import annotations

import http.client
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from urllib.parse import urlsplit

from batterykit import cli_env


class Server:
    def __init__(self, proc: subprocess.Popen, url: str, log: Path) -> None:
        self.proc, self.url, self.log = proc, url, log
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80

    def threads(self) -> int:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(re.search(r"^Threads:\s+(\d+)", status, re.M).group(1))  # type: ignore[union-attr]

    def stderr(self) -> str:
        return self.log.read_text("utf-8", "replace")

    def get(self, target: str, headers: dict[str, str] | None = None, timeout: float = 10) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.putrequest("GET", target, skip_accept_encoding=True)
            for k, v in (headers or {}).items():
                conn.putheader(k, v)
            conn.endheaders()
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def epoch(self) -> int:
        _, body = self.get("/")
        return int(re.search(rb'var epoch = "(\d+)"', body).group(1))  # type: ignore[union-attr]


@contextmanager
def serve(root: Path, *extra: str) -> Iterator[Server]:
    log = Path(tempfile.mkstemp(prefix="serve-", suffix=".log")[1])
    with open(log, "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "generator", "-C", str(root), "serve", "--port", "0", *extra],
                                stdout=subprocess.DEVNULL, stderr=err, env=cli_env(), start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        url = None
        while time.monotonic() < deadline and url is None:
            m = re.search(r"serving (http://\S+/)", log.read_text())
            url = m.group(1) if m else None
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        assert url, f"serve did not start:\n{log.read_text()}"
        yield Server(proc, url, log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.unlink()


def _rst_close(sock: socket.socket) -> None:
    """Close with a reset (SO_LINGER 0), as a browser tab that is killed does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _settle(server: Server, at_most: int, seconds: float = 10) -> int:
    deadline = time.monotonic() + seconds
    n = server.threads()
    while n > at_most and time.monotonic() < deadline:
        time.sleep(0.1)
        n = server.threads()
    return n


# ============================================================================ E5


def test_e5_huge_header_gets_431_and_the_server_keeps_serving(good_site: Path) -> None:
    with serve(good_site) as s:
        assert s.get("/", {"X-Big": "a" * 70_000})[0] == 431
        assert s.get("/" + "a" * 70_000)[0] in (400, 414)
        assert s.get("/authors/ada/")[0] == 200
        assert "Traceback" not in s.stderr()


# ============================================================================ E6


def test_e6_200_idle_connections_do_not_block_a_normal_request(good_site: Path) -> None:
    with serve(good_site) as s:
        s.get("/")
        baseline = s.threads()
        t0 = time.monotonic()
        idle = [socket.create_connection((s.host, s.port)) for _ in range(200)]
        opening = time.monotonic() - t0
        try:
            # A listen backlog far too small stalls connects for seconds each (SYN retries after 1,
            # 3, 7 s...). Here the 200 take 1.03 s (median of 5: a few wait one 1 s SYN retry), so
            # 10 s is 9.7x.
            assert opening < 10, f"opening 200 connections took {opening:.1f} s (listen backlog too small?)"
            time.sleep(0.3)
            t0 = time.monotonic()
            status, body = s.get("/authors/ada/", timeout=5)
            elapsed = time.monotonic() - t0
            assert status == 200 and b"Ada Lovelace" in body
            # Not blocked: a server that served the idle connections first would answer only when
            # it drops them (after 15 s). The GET's median is 0.004 s here (5 runs), so 5 s is over 1,000x.
            assert elapsed < 5.0, f"a normal GET took {elapsed:.2f} s behind 200 idle connections"
        finally:
            for sock in idle:
                sock.close()
        after = _settle(s, baseline + 2)
        assert after <= baseline + 2, f"{after} threads after the idle connections closed (baseline {baseline})"
        assert "Traceback" not in s.stderr()


# ============================================================================ E7


def test_e7_clients_that_vanish_mid_download_and_mid_long_poll(good_site: Path) -> None:
    """50 resets mid-download and 50 mid-long-poll: no traceback, and no thread left once a
    rebuild wakes the abandoned long-polls."""
    out = good_site / "output"
    biggest = max((p for p in out.rglob("*") if p.is_file()), key=lambda p: p.stat().st_size)
    target = "/" + biggest.relative_to(out).as_posix()
    with serve(good_site) as s:
        assert s.get(target)[0] == 200
        baseline = s.threads()
        for _ in range(50):
            sock = socket.create_connection((s.host, s.port))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            sock.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            sock.recv(100)
            _rst_close(sock)
        epoch = s.epoch()
        for _ in range(50):
            sock = socket.create_connection((s.host, s.port))
            sock.sendall(f"GET /__livereload/{epoch} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            time.sleep(0.01)
            _rst_close(sock)
        author = good_site / "content" / "authors" / "ada.yaml"
        author.write_text(author.read_text().replace("Analytical Engines Ltd", "Woken Up Ltd"))
        deadline = time.monotonic() + 20
        while s.epoch() == epoch and time.monotonic() < deadline:
            time.sleep(0.1)
        assert s.epoch() != epoch, "the edit did not trigger a rebuild"
        after = _settle(s, baseline + 2)
        assert after <= baseline + 2, f"{after} threads left (baseline {baseline})"
        assert b"Woken Up Ltd" in s.get("/authors/ada/")[1]
        log = s.stderr()
        assert "Traceback" not in log and "Broken pipe" not in log and "Connection reset" not in log, log[-3000:]


# ============================================================================ E8


def _listening(port: int) -> set[str]:
    """Local addresses listening on ``port`` (from /proc/net/tcp and tcp6)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            addr, p = local.split(":")
            if int(p, 16) == port and state == "0A":   # LISTEN
                if len(addr) == 8:
                    found.add(socket.inet_ntoa(struct.pack("<I", int(addr, 16))))
                else:
                    found.add("ipv6:" + addr)
    return found


def test_e8_default_bind_is_loopback_only(good_site: Path) -> None:
    with serve(good_site) as s:
        assert s.url.startswith("http://127.0.0.1:")
        assert _listening(s.port) == {"127.0.0.1"}
        assert "reachable from other machines" not in s.stderr()


def test_e8_all_interfaces_only_when_asked_with_a_notice(good_site: Path) -> None:
    with serve(good_site, "--host", "0.0.0.0") as s:
        assert _listening(s.port) == {"0.0.0.0"}
        assert "warning: listening on 0.0.0.0: the preview is reachable from other machines" in s.stderr()
        # bound to all interfaces on purpose, so any Host is accepted (a LAN name or address)
        assert s.get("/", {"Host": f"devbox.local:{s.port}"})[0] == 200


# ============================================================================ E10


def test_e10_requests_during_rebuilds_get_complete_pages(good_site: Path) -> None:
    author = good_site / "content" / "authors" / "ada.yaml"
    original = author.read_text()
    names = [f"Affiliation Number {i}" for i in range(6)]
    with serve(good_site) as s:
        results: list[tuple[int, bytes]] = []
        stop = threading.Event()

        def hammer() -> None:
            while not stop.is_set():
                for target in ("/authors/ada/", "/", "/authors/ada/feed.xml"):
                    results.append((target,) + s.get(target))  # type: ignore[arg-type]

        workers = [threading.Thread(target=hammer) for _ in range(3)]
        for w in workers:
            w.start()
        try:
            for name in names:
                epoch = s.epoch()
                author.write_text(original.replace("Analytical Engines Ltd", name))
                deadline = time.monotonic() + 20
                while s.epoch() == epoch and time.monotonic() < deadline:
                    time.sleep(0.05)
                time.sleep(0.2)
        finally:
            stop.set()
            for w in workers:
                w.join(30)
        assert len(results) > 50
        bad = [(t, st, body[-80:]) for t, st, body in results if st != 200]  # type: ignore[misc]
        assert not bad, f"{len(bad)} of {len(results)} requests failed during rebuilds, e.g. {bad[:3]}"
        for target, _, body in results:  # type: ignore[misc]
            end = b"</feed>\n" if target.endswith(".xml") else b"</html>\n"
            assert body.endswith(end), f"{target}: incomplete ({len(body)} bytes)"
        last = s.get("/authors/ada/")[1]
        assert names[-1].encode() in last
        assert "Traceback" not in s.stderr()


# ============================================================================ E5, E8, E11


def test_e5_long_path_segments_are_answered_without_a_traceback(good_site: Path) -> None:
    with serve(good_site) as s:
        for target in ("/" + "a" * 1000, "/authors/" + "b" * 1000 + "/", "/" + "c" * 9000,
                       "/authors/ada/" + "d" * 9000 + ".html", "/" + "%C3%A9" * 300):
            assert s.get(target)[0] in (404, 414), target[:40]
        assert s.get("/authors/ada/")[0] == 200
        log = s.stderr()
        assert "Traceback" not in log and "Errno 36" not in log and "File name too long" not in log, log[-3000:]


def test_e8_busy_port_names_the_port_and_the_option(good_site: Path) -> None:
    with serve(good_site) as s:
        proc = subprocess.run([sys.executable, "-m", "generator", "-C", str(good_site), "serve", "--port", str(s.port)],
                              capture_output=True, text=True, env=cli_env(), timeout=60)
        assert proc.returncode == 1
        assert proc.stderr.strip() == (f"error: port {s.port} on 127.0.0.1 is already in use (another serve?): stop "
                                       f"the other server, or choose another port with --port {s.port + 1} "
                                       "(--port 0 picks a free one)"), proc.stderr
        assert s.get("/authors/ada/")[0] == 200   # the running server is unharmed


def test_e11_broken_at_start_says_so_and_serves_the_error_page(good_site: Path) -> None:
    config = good_site / "site.yaml"
    original = config.read_text()
    config.write_text(original + "\nno_such_key: 1\n")
    with serve(good_site) as s:
        status, body = s.get("/")
        assert status == 500 and b'id="build-error"' in body and b"site.yaml" in body
        assert "serving the error page until it is fixed" in s.stderr()
        epoch = s.epoch()
        config.write_text(original)
        deadline = time.monotonic() + 20
        while s.epoch() == epoch and time.monotonic() < deadline:
            time.sleep(0.1)
        assert s.get("/")[0] == 200
        assert "Traceback" not in s.stderr()


def test_e8_serve_outside_a_site_is_one_line(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "generator", "-C", str(tmp_path), "serve", "--port", "0"],
                          capture_output=True, text=True, env=cli_env(), timeout=60)
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "no site.yaml in" in proc.stderr
