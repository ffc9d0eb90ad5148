"""``authorsite serve``: a local preview that rebuilds and reloads the browser.

The preview is built into a temporary folder with base_url set to the server's own
address (so links work locally whatever site.yaml says; output/ is never touched).
The site stays in memory between edits (generator.serve.live): an edit re-reads only the
changed files and re-renders only the pages it touches: after an edit of an author's
files, that author's own files first, then the rest of the pages, then the search index.
A watcher (serve_watch.py) rebuilds on changes to site.yaml, content/, themes/,
templates/ and static/, including those folders made after start, and never on what the
build or the tools write. Each open page reloads as soon as its own file is written
(generator.serve.reload: a script injected into HTML responses long-polls for it).
A failed rebuild keeps the last good build on disk but answers HTML requests with
an error page naming the file and line; the next good build recovers by itself.
A site broken at start is served the same way (the error page, until it is fixed).

The server serves only the built folder: no dotfiles, no symlinks, no ``..``,
no directory listings, only GET/HEAD, a Host check against DNS rebinding when
bound to loopback, and a socket timeout for idle connections. Any request path gets
an answer, never a dropped connection: 414 for a path longer than the system's
PATH_MAX, 404 for a segment longer than NAME_MAX or any other path the file system
refuses. A port in use is one line of error and exit 1. ``serve`` never fetches.
"""

from __future__ import annotations

import errno
import gc
import html
import logging
import posixpath
import tempfile
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Collection
from urllib.parse import parse_qs, unquote, urlsplit

from generator.core import routes
from generator.core.errors import SiteError
from generator.serve.live import LiveSite
from generator.serve.reload import PreviewState, inject
from generator.serve.watch import CONFIG, INPUT_DIRS, watch_inputs

log = logging.getLogger(__name__)

WATCHED = (CONFIG, *INPUT_DIRS)
MAX_PATH = 4096      # Linux PATH_MAX: a longer request path cannot name a file (414)
MAX_SEGMENT = 255    # NAME_MAX, in bytes: a longer segment cannot name a file (404)
_TYPES = {
    ".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
    ".xml": "application/xml; charset=utf-8", ".json": "application/json", ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8", ".png": "image/png", ".jpg": "image/jpeg", ".ico": "image/x-icon",
    ".bib": "text/plain; charset=utf-8", ".woff2": "font/woff2", ".wasm": "application/wasm",
}
_ERROR_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Build failed</title>
<style>body{font:1rem/1.5 system-ui,sans-serif;margin:2rem;color:#1b1f24;background:#fff}
pre{background:#fff4f4;border:1px solid #c33;padding:1rem;white-space:pre-wrap}</style></head>
<body><main><h1>Build failed</h1><p>The last good build is kept; fix the problem and save: this page reloads by itself.</p>
<pre id="build-error">%s</pre></main></body></html>"""


class PreviewServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default backlog of 5 made 200 connections opened at once take 30 s
    # (dropped SYNs are retried after 1 s, 3 s ...); a browser opening a page is a burst too.
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], state: PreviewState, allow_any_host: bool) -> None:
        super().__init__(address, PreviewHandler)
        self.state = state
        self.allow_any_host = allow_any_host


class PreviewHandler(BaseHTTPRequestHandler):
    server: PreviewServer
    timeout = 15                     # idle connections are dropped
    protocol_version = "HTTP/1.1"
    server_version = "authorsite-preview"
    sys_version = ""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        log.debug("%s %s", self.address_string(), format % args)

    def handle_one_request(self) -> None:
        try:
            super().handle_one_request()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def _method_not_allowed(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, b"method not allowed\n", "text/plain", True,
                   extra={"Allow": "GET, HEAD"})

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _method_not_allowed

    # -------------------------------------------------------------------------------------------
    def _answer(self, body: bool) -> None:
        """Every request gets an answer: a path the file system refuses is not found, not a reset."""
        try:
            self._serve(body)
            self.server.state.last_request = time.monotonic()
        except OSError as exc:
            log.debug("%s: %s", self.path[:200], exc)
            self.close_connection = True
            try:
                self._not_found(body)
            except OSError:
                pass             # the client is gone: nothing left to answer

    def _serve(self, body: bool) -> None:
        if not self._host_ok():
            self._send(HTTPStatus.MISDIRECTED_REQUEST, b"unknown host\n", "text/plain", body)
            return
        rel = self._resolve_request_path()
        if rel is None:
            self._send(HTTPStatus.BAD_REQUEST, b"bad request\n", "text/plain", body)
            return
        if len(rel.encode("utf-8")) > MAX_PATH:
            self._send(HTTPStatus.REQUEST_URI_TOO_LONG, b"request path too long\n", "text/plain", body)
            return
        if rel.startswith("__livereload/"):
            self._long_poll(rel.split("/", 1)[1], body)
            return
        state = self.server.state
        epoch = state.epoch              # before the file is read: a change after it reloads the page
        file = self._find_file(state.out_dir, rel)
        if state.error is not None and (file.suffix if file else posixpath.splitext(rel)[1]) in ("", ".html"):
            page = (_ERROR_PAGE % html.escape(state.error)).encode("utf-8")
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, inject(page, epoch), _TYPES[".html"], body)
            return
        if file is None:
            self._not_found(body)
            return
        try:
            data = file.read_bytes()
        except OSError:
            self._not_found(body)
            return
        ctype = _TYPES.get(file.suffix, "application/octet-stream")
        if file.suffix == ".html":
            data = inject(data, epoch, file.relative_to(state.out_dir).as_posix())
        self._send(HTTPStatus.OK, data, ctype, body)

    def _host_ok(self) -> bool:
        if self.server.allow_any_host:
            return True
        host = (self.headers.get("Host") or "").strip().lower()
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return name in ("127.0.0.1", "localhost", "[::1]", "::1")

    def _resolve_request_path(self) -> str | None:
        """The request's path relative to the site root, or None for a malformed request."""
        raw = self.path
        if not raw.startswith("/") or raw.startswith("//") or "\\" in raw:
            return None
        path = urlsplit(raw).path
        try:
            decoded = unquote(path, errors="strict")
        except UnicodeDecodeError:
            return None
        if "\0" in decoded or "\\" in decoded or any(ord(c) < 32 for c in decoded):
            return None
        if "%" in decoded and unquote(decoded) != decoded:  # double encoding (%252e): refuse
            return None
        return decoded.lstrip("/")

    @staticmethod
    def _find_file(root: Path, rel: str) -> Path | None:
        parts = [p for p in rel.split("/") if p]
        if any(p.startswith(".") for p in parts):
            return None          # dotfiles, '..' and '.': never served
        if any(len(p.encode("utf-8")) > MAX_SEGMENT for p in parts):
            return None          # no file has such a name (stat would fail with ENAMETOOLONG)
        norm = posixpath.normpath("/" + "/".join(parts))
        current = root
        for part in [p for p in norm.split("/") if p]:
            current = current / part
            if current.is_symlink():
                return None
        if current.is_dir():
            current = current / "index.html"
            if current.is_symlink():
                return None
        if not current.is_file():
            return None
        try:
            current.resolve().relative_to(root.resolve())
        except ValueError:
            return None
        return current

    def _not_found(self, body: bool) -> None:
        page = self.server.state.out_dir / routes.not_found().path
        data = page.read_bytes() if page.is_file() and not page.is_symlink() else b"not found\n"
        ctype = _TYPES[".html"] if page.is_file() else "text/plain"
        data = inject(data, self.server.state.epoch) if page.is_file() else data
        self._send(HTTPStatus.NOT_FOUND, data, ctype, body)

    def _long_poll(self, epoch_text: str, body: bool) -> None:
        try:
            epoch = int(epoch_text)
        except ValueError:
            self._send(HTTPStatus.BAD_REQUEST, b"bad epoch\n", "text/plain", body)
            return
        page = parse_qs(urlsplit(self.path).query).get("page", [None])[0]
        current, reload = self.server.state.wait_past(epoch, 20.0, page)
        answer = "reload" if reload and page is not None else str(current)
        self._send(HTTPStatus.OK, answer.encode(), "text/plain", body, extra={"Cache-Control": "no-store"})

    def _send(self, status: HTTPStatus, data: bytes, ctype: str, body: bool,
              extra: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if body:
                self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True


def _rebuild(live: LiveSite, state: PreviewState, changed: list[str] | None, index: threading.Event) -> bool:
    """Update the preview with what changed (None: anything may have). Each open page reloads as
    soon as its own file is written: after an edit of authors' files, those authors' files come
    first, then the rest of the pages (``LiveSite.catch_up``: the home page, subjects, feeds);
    ``index`` wakes the thread that writes the search index. What is loaded is then kept out of
    the cyclic GC (``gc.freeze``; each update's render pool unfreezes it as it ends): a full collection
    scanned the model of 1,000 x 100 for 0.9 s at any moment, during the next edit's update or
    while a page is served. What an update drops is freed by its reference counts."""
    published: list[float] = []
    start = time.perf_counter()
    told = [0]

    def pages_ready(paths: Collection[str] | None) -> None:
        published.append(time.perf_counter() - start)
        told[0] += state.publish(None, paths)

    try:
        done = [live.update(changed, pages_ready, later=True)]
        if told[0] and live.behind:
            state.wait_reloaded(1.0)
        rest = live.catch_up(pages_ready)
        done += [rest] if rest is not None else []
        gc.freeze()
    except SiteError as exc:
        kept = ("still serving the last good build" if live.out_dir.is_dir()
                else "serving the error page until it is fixed")
        log.error("build failed (%s):\n%s", kept, exc)
        state.publish(str(exc))
        return True
    except Exception as exc:   # a bug of ours must not end the watch: say so, and load all of it next time
        log.exception("internal error while updating the preview (please report it); still watching")
        state.publish(f"internal error: {exc!r}; the next edit reloads the whole site")
        return False
    if not published:
        state.publish(None, ())
    index.set()
    return True
    log.info("rebuilt in %.2f s, pages reloaded after %s (%d jobs rendered, %d reused)", time.perf_counter() - start,
             ", ".join(f"{t:.2f} s" for t in published), sum(u.rendered for u in done), done[-1].reused)
    log.debug("  %s", ", ".join(f"{name} {seconds:.3f} s" for u in done for name, seconds in u.stages))


def _watch(live: LiveSite, state: PreviewState, index: threading.Event, stop: threading.Event) -> None:
    sound = [True]   # False after an internal error: the next update reads everything again

    def changed(paths: list[str], whole: bool) -> None:
        more = f" and {len(paths) - 5} more" if len(paths) > 5 else ""
        log.info("changed: %s%s", ", ".join(paths[:5]), more)
        sound[0] = _rebuild(live, state, None if whole or not sound[0] else paths, index)

    watch_inputs(live.root, changed, stop)


def _index(live: LiveSite, state: PreviewState, index: threading.Event, stop: threading.Event) -> None:
    """Plan and write the search index the last edits left pending, in the background, once the
    reloaded pages are served: the page has reloaded already, and the next edit does not wait for it."""
    while not stop.is_set():
        if index.wait(0.5):
            index.clear()
            state.wait_quiet(0.5, 2.0)
            start = time.perf_counter()
            done = live.index_pending()
            gc.freeze()
            if done:
                log.info("search index caught up in %.2f s", time.perf_counter() - start)


def _bind(host: str, port: int, state: PreviewState, loopback: bool) -> PreviewServer:
    """The listening server, or one line saying why it cannot listen and what to do."""
    try:
        return PreviewServer((host, port), state, allow_any_host=not loopback)
    except OSError as exc:
        other = port + 1 if 0 < port < 65535 else 8000
        if exc.errno == errno.EADDRINUSE:
            why = f"port {port} on {host} is already in use (another serve?)"
        elif exc.errno == errno.EACCES:
            why = f"no permission to listen on port {port} (ports below 1024 need root)"
        else:
            why = f"cannot listen on {host}:{port}: {exc.strerror or exc} (check --host)"
        raise SiteError(f"{why}: stop the other server, or choose another port with --port {other} "
                        "(--port 0 picks a free one)") from None


def serve(root: Path, host: str = "127.0.0.1", port: int = 8000, ready: threading.Event | None = None,
          stop: threading.Event | None = None, reuse: bool = True) -> None:
    """Build, serve and watch until interrupted (or until ``stop`` is set, for tests). ``reuse=False``
    (serve --no-reuse): each edit rebuilds the whole preview, keeping nothing from the last one."""
    root = root.resolve()
    if not (root / CONFIG).is_file():
        raise SiteError(f"no {CONFIG} in {root}: run serve in a site's folder (or give it with -C FOLDER)")
    loopback = host in ("127.0.0.1", "localhost", "::1")
    if not loopback:
        log.warning("listening on %s: the preview is reachable from other machines", host)
    with tempfile.TemporaryDirectory(prefix="authorsite-serve-") as tmp:
        out_dir = Path(tmp) / "site"
        state = PreviewState(out_dir)
        server = _bind(host, port, state, loopback)
        url = f"http://{'127.0.0.1' if host == '0.0.0.0' else host}:{server.server_port}/"
        live = LiveSite(root, url, out_dir, reuse=reuse)
        index = threading.Event()
        _rebuild(live, state, None, index)  # a broken site is served too: its error page, until fixed
        stop = stop or threading.Event()
        watcher = threading.Thread(target=_watch, args=(live, state, index, stop), daemon=True)
        watcher.start()
        threading.Thread(target=_index, args=(live, state, index, stop), daemon=True).start()
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
        thread.start()
        log.info("serving %s (Ctrl-C to stop)", url)
        if ready is not None:
            ready.set()
        try:
            while not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            log.info("stopping")
        finally:
            stop.set()
            server.shutdown()
            server.server_close()
