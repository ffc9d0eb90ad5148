"""A fake arXiv API on 127.0.0.1: recorded or generated Atom pages, and faults on demand.

Standard library only (``http.server``). Each test starts its own server on a free
port; it answers every request with a ``Reply`` chosen by the test's responder (a
script of replies in order, or a corpus paged by ``start``/``max_results`` like
arXiv), logs each request with its arrival and completion time (the rate-limit and
"one request per author" assertions read this log), and stops when the test ends or
after ``LIFETIME`` seconds, whichever comes first.

Faults: any status and headers (503 + Retry-After, 429, 406, 400 ...), a delay
before answering, a body dripped byte by byte, a connection that is accepted and
never answered, and a body cut short of its Content-Length.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Iterator, Sequence
from urllib.parse import parse_qs, urlsplit

import pytest
from atomgen import feed_xml

LIFETIME = 90.0


@dataclass(frozen=True)
class Reply:
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/atom+xml; charset=utf-8"
    before: float = 0.0              # seconds to wait before answering
    drip: float = 0.0                # seconds between single bytes of the body
    hang: bool = False               # read the request, never answer (until the server stops)
    cut_at: int | None = None        # announce the full length, send this many bytes, close
    no_length: bool = False          # no Content-Length: the body ends when the connection closes
    drip_head: float = 0.0           # seconds between single bytes of the status line and headers


@dataclass
class Hit:
    time: float                      # time.monotonic() when the request line arrived
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    end: float = float("inf")        # when the answer was finished (or abandoned)


Responder = Callable[[str, dict[str, str]], Reply]


class Script:
    """Replies in order; the last one (or ``then``) repeats once the script is used up."""

    def __init__(self, *replies: Reply, then: Reply | Responder | None = None) -> None:
        self.replies = list(replies)
        self.then = then
        self.lock = threading.Lock()

    def __call__(self, path: str, params: dict[str, str]) -> Reply:
        with self.lock:
            if self.replies and (len(self.replies) > 1 or self.then is not None):
                return self.replies.pop(0)
        if callable(self.then):
            return self.then(path, params)
        return self.then or self.replies[0]


class Corpus:
    """Pages over a list of Atom ``<entry>`` strings (newest first), as arXiv pages a query."""

    def __init__(self, entries: Sequence[str], total: int | None = None) -> None:
        self.entries = list(entries)
        self.total = total

    def __call__(self, path: str, params: dict[str, str]) -> Reply:
        start = int(params.get("start", "0"))
        size = int(params.get("max_results", "10"))
        total = len(self.entries) if self.total is None else self.total
        return Reply(feed_xml(self.entries[start:start + size], total=total, start=start, per_page=size))


class Glitch:
    """Another responder, except that the first ``times`` requests at offset ``start`` get ``reply``
    (arXiv's transient empty or short page in the middle of a query)."""

    def __init__(self, inner: Responder, start: int, reply: Reply, times: int = 1) -> None:
        self.inner, self.start, self.reply, self.left = inner, start, reply, times
        self.lock = threading.Lock()

    def __call__(self, path: str, params: dict[str, str]) -> Reply:
        with self.lock:
            if int(params.get("start", "0")) == self.start and self.left > 0:
                self.left -= 1
                return self.reply
        return self.inner(path, params)


class FakeArxiv:
    def __init__(self, responder: Responder) -> None:
        self.responder = responder
        self.hits: list[Hit] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - quiet
                pass

            def do_GET(self) -> None:  # noqa: N802
                parts = urlsplit(self.path)
                params = {k: v[0] for k, v in parse_qs(parts.query).items()}
                # logged on arrival, so the log is complete as soon as the client has its answer
                hit = Hit(time.monotonic(), parts.path, params, {k.lower(): v for k, v in self.headers.items()})
                with server._lock:
                    server.hits.append(hit)
                try:
                    server._answer(self, server.responder(parts.path, params))
                finally:
                    hit.end = time.monotonic()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/api/query"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._timer = threading.Timer(LIFETIME, self.stop)
        self._timer.daemon = True

    def start(self) -> "FakeArxiv":
        self._thread.start()
        self._timer.start()
        return self

    def stop(self) -> None:
        if self.stopping.is_set():
            return
        self.stopping.set()
        self._timer.cancel()
        self.httpd.shutdown()
        self.httpd.server_close()

    def _answer(self, h: BaseHTTPRequestHandler, reply: Reply) -> None:
        if reply.hang:
            self.stopping.wait(LIFETIME)
            h.close_connection = True
            return
        if reply.before:
            self.stopping.wait(reply.before)
        if reply.drip_head:
            head = f"HTTP/1.1 {reply.status} X\r\n" + "".join(f"X-Padding-{i}: {'x' * 40}\r\n" for i in range(200))
            try:
                for ch in head.encode():
                    if self.stopping.is_set():
                        return
                    h.wfile.write(bytes([ch]))
                    h.wfile.flush()
                    time.sleep(reply.drip_head)
            except (BrokenPipeError, ConnectionResetError):
                pass
            h.close_connection = True
            return
        h.send_response(reply.status)
        h.send_header("Content-Type", reply.content_type)
        if not reply.no_length:
            h.send_header("Content-Length", str(len(reply.body)))
        h.send_header("Connection", "close")
        for k, v in reply.headers.items():
            h.send_header(k, v)
        h.end_headers()
        h.close_connection = True
        body = reply.body if reply.cut_at is None else reply.body[:reply.cut_at]
        try:
            if reply.drip:
                for i in range(len(body)):
                    if self.stopping.is_set():
                        return
                    h.wfile.write(body[i:i + 1])
                    h.wfile.flush()
                    time.sleep(reply.drip)
            else:
                h.wfile.write(body)
                h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass   # the client gave up, as it should

    @property
    def starts(self) -> list[float]:
        return sorted(h.time for h in self.hits)

    def gaps(self) -> list[float]:
        """Time from the end of each answer to the arrival of the next request (end noted just after sending)."""
        hits = sorted(self.hits, key=lambda h: h.time)
        return [b.time - a.end for a, b in zip(hits, hits[1:])]

    def start_gaps(self) -> list[float]:
        s = self.starts
        return [b - a for a, b in zip(s, s[1:])]


@pytest.fixture
def arxiv_server() -> Iterator[Callable[[Responder], FakeArxiv]]:
    """``arxiv_server(responder)`` starts a fake arXiv; every server is stopped when the test ends.
    (Imported by the conftest of each suite that uses it.)"""
    servers: list[FakeArxiv] = []

    def start(responder: Responder) -> FakeArxiv:
        s = FakeArxiv(responder).start()
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()
