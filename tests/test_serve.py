"""The live preview (issue 5): reload on edit, error page on a broken edit, a safe server."""

from __future__ import annotations

import http.client
import shutil
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from browser_util import chromium_browser, serve_site

REPO = Path(__file__).resolve().parent.parent


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


def test_edit_reloads_open_page_and_broken_yaml_shows_error(site: Path) -> None:
    author = site / "content/authors/bin-cui.yaml"
    original = author.read_text()
    with serve_site(site) as url, chromium_browser() as browser:
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
