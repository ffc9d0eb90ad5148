"""The live preview (generator.serve.server): reload on edit, error page on a broken edit, a safe server."""

from __future__ import annotations

import http.client
import re
import shutil
import socket
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from urllib.parse import urlsplit

import pytest
from browser_util import CLI, borrowed, serve_site

from generator.serve.watch import watch_inputs

REPO = Path(__file__).resolve().parent.parent.parent


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    shutil.copy(REPO / "site.yaml", root / "site.yaml")
    shutil.copytree(REPO / "content", root / "content")
    return root


def _raw(url: str, target: str, headers: dict[str, str] | None = None, method: str = "GET") -> int:
    """Send a request line exactly as given (no client-side normalisation of the path)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.putrequest(method, target, skip_host=bool(headers and "Host" in headers), skip_accept_encoding=True)
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        conn.endheaders()
        resp = conn.getresponse()
        resp.read()
        return resp.status
    finally:
        conn.close()


def test_edit_reloads_open_page_and_broken_yaml_shows_error(site: Path, chromium) -> None:  # noqa: ANN001
    author = site / "content/authors/bin-cui.yaml"
    original = author.read_text()
    with serve_site(site) as url, borrowed(chromium) as browser:
        page = browser.new_page()
        page.goto(url + "authors/bin-cui/")
        assert page.locator("h1").inner_text() == "Bin Cui"
        page.wait_for_timeout(300)  # let the reload script start polling

        t0 = time.monotonic()
        author.write_text(original.replace("affiliation: Peking University", "affiliation: Reload Test University"))
        page.wait_for_selector("text=Reload Test University", timeout=15000)
        elapsed = time.monotonic() - t0
        print(f"\nfile write -> updated page: {elapsed:.2f} s")

        author.write_text(original.replace("name: Bin Cui", "name: [Bin Cui\n"))
        page.wait_for_selector("#build-error", timeout=15000)
        error_text = page.locator("#build-error").inner_text()
        assert "content/authors/bin-cui.yaml:" in error_text
        assert "line" in error_text.lower() or ":5" in error_text or "column" in error_text

        author.write_text(original)
        page.wait_for_selector("h1:text('Bin Cui')", timeout=15000)
        assert page.locator("#build-error").count() == 0
        assert page.locator("text=Peking University").count() >= 1


TRAVERSAL = [
    "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/%252e%252e/%252e%252e/etc/passwd",
    "/..\\..\\etc\\passwd", "//etc/passwd", "http://127.0.0.1/../../etc/passwd", "/.nojekyll", "/.git/config",
    "/.env", "/static/../../../etc/passwd", "/x%00y", "/%ff%fe", "/%zz", "/static/",
]


def test_traversal_dotfiles_and_bad_paths_get_400_or_404(site: Path) -> None:
    with serve_site(site) as url:
        for target in TRAVERSAL:
            status = _raw(url, target)
            assert status in (400, 404), (target, status)
        assert _raw(url, "/" + "a" * 70000) in (400, 414)
        assert _raw(url, "/", {"Host": "evil.example"}) in (400, 421)
        assert _raw(url, "/", method="POST") == 405
        assert _raw(url, "/authors/bin-cui/") == 200  # still serving


def test_symlink_out_of_the_build_is_not_followed(site: Path, tmp_path: Path) -> None:
    (site / "static").mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    (site / "static" / "leak.txt").symlink_to(secret)
    with serve_site(site) as url:
        assert _raw(url, "/static/leak.txt") == 404


def test_200_concurrent_requests_and_idle_connections(site: Path) -> None:
    with serve_site(site) as url:
        parts = urlsplit(url)
        idle = [socket.create_connection((parts.hostname, parts.port)) for _ in range(50)]
        try:
            with ThreadPoolExecutor(max_workers=50) as pool:
                statuses = list(pool.map(lambda i: _raw(url, f"/authors/{'bin-cui' if i % 2 else 'bingning-wang'}/"),
                                         range(200)))
            assert statuses == [200] * 200
        finally:
            for s in idle:
                s.close()


# ------------------------------------------------------------------ a serve that never falls over


def _get(url: str, target: str, timeout: float = 30) -> tuple[int, str]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.request("GET", target)
        resp = conn.getresponse()
        return resp.status, resp.read().decode("utf-8", "replace")
    finally:
        conn.close()


def _epoch(url: str) -> int:
    m = re.search(r'var epoch = "(\d+)"', _get(url, "/")[1])
    assert m, "no reload script on the home page"
    return int(m.group(1))


def _next_epoch(url: str, epoch: int) -> int:
    """Long-poll the reload endpoint, as an open page does; the epoch it answers with."""
    return int(_get(url, f"/__livereload/{epoch}", timeout=40)[1])


def _served(url: str, target: str, text: str, epoch: int, reloads: int = 3) -> int:
    """Wait for reloads until ``target`` serves ``text``: the folder's own creation may still be
    rebuilding when the file in it is written (one reload then carries both), so the file's
    change may come one reload later. Fails after ``reloads`` reloads without it."""
    for _ in range(reloads):
        epoch = _next_epoch(url, epoch)
        if _get(url, target) == (200, text):
            return epoch
    assert _get(url, target) == (200, text)
    return epoch


def test_busy_port_is_one_line_and_exit_1(site: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = subprocess.run([*CLI, "-C", str(site), "serve", "--port", str(port)],
                              capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert f"port {port} on 127.0.0.1 is already in use" in lines[0] and "--port" in lines[0], lines[0]
    assert "Traceback" not in proc.stderr


def test_1000_and_9000_character_path_segments_get_404_or_414(site: Path) -> None:
    with serve_site(site) as url:
        for target in ("/" + "a" * 1000, "/authors/" + "b" * 1000 + "/", "/" + "c" * 9000,
                       "/x/" + "%C3%A9" * 200 + "/index.html", "/" + "d" * 255, "/authors/bin-cui/" + "e" * 9000 + ".html"):
            status = _raw(url, target)
            assert status in (404, 414), (target[:40], status)
        assert _raw(url, "/" + "a" * 1000 + "/" + "b" * 1000 + "/" + "c" * 1000) == 404
        assert _raw(url, "/" + "/".join(["f" * 200] * 45)) == 414
        assert _raw(url, "/authors/bin-cui/") == 200


def test_a_folder_made_after_start_is_watched_and_outputs_are_not(site: Path) -> None:
    (site / "content/cache").mkdir(exist_ok=True)  # the fetch cache is an input; only its .raw/ is not
    with serve_site(site) as url:
        epoch = _epoch(url)
        (site / "templates").mkdir()                      # made after start: the watch restarts
        epoch = _next_epoch(url, epoch)
        (site / "static").mkdir()
        epoch = _next_epoch(url, epoch)
        note = site / "static" / "note.txt"
        note.write_text("first\n")
        epoch = _served(url, "/static/note.txt", "first\n", epoch)
        note.write_text("second\n")                       # an edit inside the new folder reloads
        epoch = _served(url, "/static/note.txt", "second\n", epoch)

        # what the build and the tools write is not an input
        for rel in ("output/index.html", ".authorsite/manifest-x.json", ".venv/lib/x.py", "node_modules/a/b.js",
                    "benchmark-results/run.json", "content/cache/.raw/x.json", "static/__pycache__/x.pyc",
                    "static/.note.txt.swp"):
            (site / rel).parent.mkdir(parents=True, exist_ok=True)
            (site / rel).write_text("x")
        time.sleep(1.5)
        assert _epoch(url) == epoch, "a write outside the inputs triggered a rebuild"

        with (site / "site.yaml").open("a") as fh:     # the config file is an input too
            fh.write("\n# edited while serving\n")
        assert _next_epoch(url, epoch) != epoch


@contextmanager
def _watching(root: Path) -> Iterator[list[tuple[list[str], bool, str]]]:
    """``watch_inputs`` on ``root`` in a thread, once its watch is surely in place (a probe file
    written until it is reported): the calls, each with the author file's text at that moment."""
    calls: list[tuple[list[str], bool, str]] = []
    author = root / "content/authors/a.yaml"
    stop = threading.Event()
    thread = threading.Thread(target=watch_inputs, daemon=True,
                              args=(root, lambda paths, whole: calls.append((paths, whole, author.read_text())), stop))
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not calls and time.monotonic() < deadline:
            (root / "content/probe.yaml").write_text(str(time.monotonic()))
            time.sleep(0.2)
        assert calls, "the watch never reported the probe"
        time.sleep(0.3)
        calls.clear()
        yield calls
    finally:
        stop.set()
        thread.join(10)


def _calls_after(calls: list[tuple[list[str], bool, str]], quiet: float = 0.5) -> list[tuple[list[str], bool, str]]:
    deadline = time.monotonic() + 10
    while not calls and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(quiet)      # any late call for the same save
    return list(calls)


def test_a_save_in_two_writes_is_read_once_and_a_chmod_is_no_edit(tmp_path: Path) -> None:
    root = tmp_path / "w"
    (root / "content/authors").mkdir(parents=True)
    (root / "site.yaml").write_text("title: x\n")
    author = root / "content/authors/a.yaml"
    author.write_text("name: A\n")
    rel = "content/authors/a.yaml"
    with _watching(root) as calls:
        with author.open("w") as fh:       # truncated, then written in two parts
            fh.write("name: B\n")
            fh.flush()
            fh.write("affiliation: Two Writes\n")
        assert _calls_after(calls) == [([rel], False, "name: B\naffiliation: Two Writes\n")]
        calls.clear()
        author.chmod(0o600)                # an event, but the file is as it was read
        time.sleep(0.5)
        assert calls == [], "a chmod was taken for an edit"
        author.write_text("name: C\n")
        assert _calls_after(calls) == [([rel], False, "name: C\n")]


def test_a_site_broken_at_start_shows_the_error_page_then_recovers(site: Path) -> None:
    author = site / "content/authors/bin-cui.yaml"
    original = author.read_text()
    author.write_text(original.replace("name: Bin Cui", "name: [Bin Cui\n"))
    with serve_site(site) as url:
        status, body = _get(url, "/authors/bin-cui/")
        assert status == 500 and 'id="build-error"' in body, (status, body[:300])
        assert "content/authors/bin-cui.yaml:" in body
        assert _get(url, "/")[0] == 500
        epoch = _epoch(url)
        # "serving" is logged before the watcher's inotify watches are surely in place: the fixed
        # file is written again until a rebuild serves it (no fixed sleep, no speed assumed)
        deadline = time.monotonic() + 30
        status = 500
        while status != 200 and time.monotonic() < deadline:
            author.write_text(original)
            time.sleep(0.5)
            status, body = _get(url, "/authors/bin-cui/")
        assert status == 200 and "Bin Cui" in body and "build-error" not in body
        assert _epoch(url) != epoch, "the open pages were not told to reload"
