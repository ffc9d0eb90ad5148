"""An httpx transport whose every socket operation ends by the request's deadline.

httpx's timeouts apply to each read separately: a server that sends one byte a
second never trips a 30 s read timeout, and h11 accepts up to 100 kB of response
headers, so a server dripping its *headers* could hold a request for a day before
the body loop in ``http.HttpClient`` ever gets to check the clock. Here the deadline
is enforced below HTTP: httpcore's documented ``network_backend`` hook wraps each
connection so that connect, TLS handshake, write and read get at most the time left
until the current request's deadline (one request at a time, so one deadline).

Only public httpx/httpcore API is used; httpcore's exceptions are passed through
unchanged (``HttpClient`` maps both libraries' exceptions). Requests that go through
a proxy from the environment use httpx's own transport and keep only the between-chunks
check.
"""

from __future__ import annotations

import ssl
from typing import Callable, Iterable, Iterator

import httpcore
import httpx

# A request extension: a query part (``api_key=...``) added to the request line here and nowhere
# else, so that httpx's own log line and every URL our code handles stay free of it.
SECRET_QUERY = "authorsite.secret_query"


class DeadlineBackend(httpcore.SyncBackend):
    """Connections whose operations get ``min(timeout, time left)``; set ``deadline`` per request."""

    def __init__(self, monotonic: Callable[[], float]) -> None:
        self.monotonic = monotonic
        self.deadline: float | None = None

    def left(self, timeout: float | None, error: type[Exception] = httpcore.ReadTimeout) -> float | None:
        if self.deadline is None:
            return timeout
        remaining = self.deadline - self.monotonic()
        if remaining <= 0:
            raise error("the request's overall deadline passed")
        return remaining if timeout is None else min(timeout, remaining)

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None) -> httpcore.NetworkStream:
        stream = super().connect_tcp(host, port, self.left(timeout, httpcore.ConnectTimeout), local_address,
                                     socket_options)
        return _DeadlineStream(stream, self)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream, backend: DeadlineBackend) -> None:
        self._inner = inner
        self._backend = backend

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._backend.left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._backend.left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        left = self._backend.left(timeout, httpcore.ConnectTimeout)
        inner = self._inner.start_tls(ssl_context, server_hostname, left)
        return _DeadlineStream(inner, self._backend)

    def get_extra_info(self, info: str) -> object:
        return self._inner.get_extra_info(info)


class _Body(httpx.SyncByteStream):
    def __init__(self, inner: Iterable[bytes]) -> None:
        self._inner = inner

    def __iter__(self) -> Iterator[bytes]:
        yield from self._inner

    def close(self) -> None:
        close = getattr(self._inner, "close", None)
        if close is not None:
            close()


class DeadlineTransport(httpx.BaseTransport):
    """One connection at most (arXiv's rule), through a ``DeadlineBackend``."""

    def __init__(self, backend: DeadlineBackend) -> None:
        self._pool = httpcore.ConnectionPool(ssl_context=httpx.create_ssl_context(), max_connections=1,
                                             max_keepalive_connections=1, network_backend=backend)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, Iterable)
        extensions = dict(request.extensions)
        target = request.url.raw_path
        secret = extensions.pop(SECRET_QUERY, b"")
        if secret:
            target += (b"&" if b"?" in target else b"?") + secret
        req = httpcore.Request(
            method=request.method,
            url=httpcore.URL(scheme=request.url.raw_scheme, host=request.url.raw_host, port=request.url.port,
                             target=target),
            headers=request.headers.raw, content=request.stream, extensions=extensions)
        resp = self._pool.handle_request(req)
        assert isinstance(resp.stream, Iterable)
        return httpx.Response(status_code=resp.status, headers=resp.headers, stream=_Body(resp.stream),
                              extensions=resp.extensions)

    def close(self) -> None:
        self._pool.close()
