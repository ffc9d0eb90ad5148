"""Helpers for tests/site/test_theme_quality.py: build the demo site, serve it, validate it.

The tools are real ones, installed by ``npm ci`` (package.json / package-lock.json):
the W3C Nu HTML checker (``vnu-jar``, run with java) and ``axe-core`` (injected into
Debian's Chromium). Nothing here downloads anything.
"""

from __future__ import annotations

import http.server
import json
import shutil
import subprocess
import sys
import threading
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Iterator
from urllib.parse import unquote, urlsplit

import pytest

REPO = Path(__file__).resolve().parent.parent
NODE_MODULES = REPO / "node_modules"
VNU_JAR = NODE_MODULES / "vnu-jar" / "build" / "dist" / "vnu.jar"
AXE_JS = NODE_MODULES / "axe-core" / "axe.min.js"
ARTIFACTS = REPO / "test-artifacts"

# Where the test build pretends to be published: a GitHub Pages project path, so the
# root-relative links (/authorsite/...) are exercised exactly as on Pages.
BASE_URL = "https://example.github.io/authorsite/"
BASE_PATH = urlsplit(BASE_URL).path

AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def require_node_tools() -> None:
    missing = [str(p.relative_to(REPO)) for p in (VNU_JAR, AXE_JS) if not p.is_file()]
    if missing:
        pytest.fail("missing " + ", ".join(missing) + ": run `npm ci --ignore-scripts` at the repo root "
                    "(package-lock.json pins vnu-jar and axe-core)")
    if shutil.which("java") is None:
        pytest.fail("java not found: the Nu HTML checker needs a Java 11+ runtime "
                    "(.ci/run installs default-jre-headless)")


def build_demo_site(workdir: Path) -> Path:
    """Copy the demo site's inputs into ``workdir`` and build them; return the output folder.

    A copy, so a build running elsewhere in the tree (or an edit in progress) cannot
    disturb the output under test, and the repo's own output/ is never touched.
    """
    src = workdir / "site"
    src.mkdir(parents=True)
    shutil.copy2(REPO / "site.yaml", src / "site.yaml")
    for name in ("content", "templates", "static", "themes"):
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, src / name,
                            ignore=shutil.ignore_patterns(".raw", "__pycache__"))
    return build_site_dir(src, workdir / "out")


def build_site_dir(src: Path, out: Path) -> Path:
    """``python -m generator -C src build`` for the test base URL into ``out``."""
    res = subprocess.run([sys.executable, "-m", "generator", "-C", str(src), "-q", "build",
                          "--base-url", BASE_URL, "--output", str(out)],
                         capture_output=True, text=True, timeout=300, cwd=src.parent)
    assert res.returncode == 0, f"build failed ({res.returncode}):\n{res.stdout}\n{res.stderr}"
    return out


# --- Nu HTML checker -------------------------------------------------------------------------

def run_vnu(files: list[Path], css: bool = False) -> list[dict]:
    """Run the Nu checker once over ``files``; return its error messages (JSON format)."""
    # (a short run: the JIT's first tier alone and one GC thread start the checker for about half
    # the CPU of the defaults, 2.5 s against 5.5 s over the demo's pages; its answers are the same)
    cmd = ["java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss4m", "-jar", str(VNU_JAR),
           "--format", "json", "--errors-only", "--exit-zero-always"]
    if css:
        cmd.append("--also-check-css")
    res = subprocess.run(cmd + [str(f) for f in files], capture_output=True, text=True, timeout=240)
    out = res.stderr.strip() or res.stdout.strip()
    try:
        data = json.loads(out)
    except json.JSONDecodeError as exc:  # the checker itself failed (no java, bad jar ...)
        raise AssertionError(f"vnu did not answer in JSON (exit {res.returncode}):\n{out[:4000]}") from exc
    return data.get("messages", [])


def format_vnu(msg: dict, root: Path) -> str:
    url = msg.get("url", "")
    path = unquote(urlsplit(url).path) if url.startswith("file:") else url
    try:
        path = str(Path(path).relative_to(root))
    except ValueError:
        pass
    line = msg.get("lastLine", msg.get("firstLine", "?"))
    col = msg.get("lastColumn", msg.get("firstColumn", ""))
    extract = (msg.get("extract") or "").replace("\n", " ").strip()
    where = f"{path}:{line}" + (f":{col}" if col else "")
    return f"{where}: {msg.get('type')}: {msg.get('message')}" + (f"\n    near: {extract[:160]}" if extract else "")


# --- a static server like GitHub Pages ---------------------------------------------------------

class _PagesHandler(http.server.SimpleHTTPRequestHandler):
    """Serves ``directory`` under ``prefix`` (the project path); unknown paths get 404.html
    with status 404, as GitHub Pages does."""

    prefix = "/"
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm", ".js": "text/javascript", ".mjs": "text/javascript",
        ".css": "text/css", ".svg": "image/svg+xml", ".xml": "application/xml",
        ".json": "application/json",   # Pagefind's own files (the bench's peer) are octet streams by default
    }

    def translate_path(self, path: str) -> str:
        p = urlsplit(path).path
        if not p.startswith(self.prefix):
            return str(Path(self.directory) / "__outside-the-site-path__" / "x")
        return super().translate_path("/" + p[len(self.prefix):])

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code == 404 and page.is_file():
            body = page.read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            return
        super().send_error(code, message, explain)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


@contextmanager
def static_server(root: Path, prefix: str = BASE_PATH) -> Iterator[str]:
    """Serve ``root`` on 127.0.0.1 (a free port) under ``prefix``; yield the site's URL."""
    handler = type("Handler", (_PagesHandler,), {"prefix": prefix})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(root)))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, name="static-site", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}{prefix}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


# --- browser -------------------------------------------------------------------------------------

class PageWatch:
    """Collects what a page does while it loads: console errors, uncaught exceptions and every
    request URL (anything not on the local origin is also aborted, so it never leaves)."""

    def __init__(self, page, origin: str) -> None:  # noqa: ANN001 - playwright Page
        self.origin = origin.rstrip("/") + "/"
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        self.requests: list[str] = []
        self.ignore_console: set[str] = set()
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))
        page.on("request", lambda req: self.requests.append(req.url))
        page.route(lambda url: not self.is_local(url), lambda route: route.abort())

    def is_local(self, url: str) -> bool:
        # data:/blob: URLs are made in the page and never touch the network.
        return url.startswith(self.origin) or url.startswith(("data:", "blob:"))

    def _console(self, msg) -> None:  # noqa: ANN001
        if msg.type == "error":
            loc = msg.location.get("url", "") if msg.location else ""
            if loc in self.ignore_console and "404" in msg.text:
                return  # the expected 404 status of the not-found page itself
            self.console_errors.append(f"{msg.text} (at {loc or '?'})")

    def foreign_requests(self) -> list[str]:
        return [u for u in self.requests if not self.is_local(u)]

    def problems(self) -> list[str]:
        return ([f"console error: {e}" for e in self.console_errors]
                + [f"uncaught exception: {e}" for e in self.page_errors]
                + [f"request leaving 127.0.0.1: {u}" for u in self.foreign_requests()])


def run_axe(page) -> list[dict]:  # noqa: ANN001
    """Inject axe-core and return the WCAG 2.0/2.1 A/AA violations of the current page."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    result = page.evaluate(
        """async (tags) => {
             const r = await axe.run(document, {runOnly: {type: 'tag', values: tags},
                                                resultTypes: ['violations']});
             return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
               nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary}))}));
           }""", AXE_TAGS)
    return result


def format_axe(v: dict, where: str) -> str:
    lines = [f"{where}: [{v['impact']}] {v['id']}: {v['help']}"]
    for n in v["nodes"][:8]:
        summary = " ".join((n.get("summary") or "").split())
        lines.append(f"    {n['target']}  -- {summary[:300]}")
    if len(v["nodes"]) > 8:
        lines.append(f"    ... and {len(v['nodes']) - 8} more")
    return "\n".join(lines)


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def is_png(path: Path) -> bool:
    return path.is_file() and path.stat().st_size > 1000 and path.read_bytes()[:8] == PNG_MAGIC


def open_page(browser, base: str, path: str, width: int, scheme: str = "light"):  # noqa: ANN001, ANN201
    """A new page of ``browser`` at ``width`` px in ``scheme``, loaded from ``base + path`` (status
    200), and the ``PageWatch`` on it (console errors, requests off the site)."""
    from urllib.parse import urlsplit

    page = browser.new_page(viewport={"width": width, "height": 800 if width >= 600 else 720})
    page.emulate_media(color_scheme=scheme)
    watch = PageWatch(page, "{0.scheme}://{0.netloc}".format(urlsplit(base)))
    resp = page.goto(base + path, wait_until="load")
    assert resp is not None and resp.status == 200, path
    return page, watch
