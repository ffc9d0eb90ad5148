"""The one HTTP client every source uses: polite, bounded, and retrying in a loop.

Politeness (arXiv's terms of use): one connection, at least ``delay_seconds`` between
requests measured from the *end* of the previous one (so the server never sees two
requests closer than that, whatever the network does), a User-Agent naming the tool,
its version and the site's contact. Below 3 s is refused for arXiv's own hosts.

Bounds: every request has an overall deadline. httpx's timeouts are per read, so a
server dripping one byte a second would hold it forever: ``transport`` gives every
socket operation only the time left (headers included), and the elapsed time is also
checked between body chunks. The body is capped while streaming (the Content-Length
is checked first, then the bytes actually received, after decompression).

Retries are a loop, not recursion (arxiv.py recursed): exponential back-off with
jitter on timeouts, connection errors, 5xx, 429 and 406 (arXiv's throttling), and on
whatever the caller's ``accept`` function calls transient (an empty or short page,
'Rate exceeded.' with status 200, a truncated body). ``Retry-After`` (seconds or an
HTTP date) is honoured up to ``retry_after_cap``; beyond it the client gives up at once
with a clear message instead of sleeping for an hour. A host name that does not
resolve (offline, or a typo in the address) is retried once, not ``retries`` times,
and then every later request to that host in the same run fails at once: an offline
fetch ends in seconds per source instead of minutes. Redirects are followed only
within the same host. Clock, sleep and randomness are injectable for unit tests.
"""

from __future__ import annotations

import logging
import random
import socket
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable, Mapping, TypeVar
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpcore
import httpx

from generator import __version__
from generator.core.errors import EXIT_REFUSED, EXIT_UPSTREAM, SiteError
from generator.sources.transport import SECRET_QUERY, DeadlineBackend, DeadlineTransport

log = logging.getLogger(__name__)

T = TypeVar("T")
MAX_BYTES = 20 * 1024 * 1024     # a full 2,000-entry arXiv page is about 4 MB
ARXIV_MIN_DELAY = 3.0            # arXiv's terms of use: one request every three seconds
MAX_REDIRECTS = 3
DNS_RETRIES = 1                  # a name that does not resolve is tried twice in all, then given up


class TransientError(Exception):
    """The response cannot be believed now but may be fine later: retry."""

    def __init__(self, reason: str, *, throttled: bool = False, retry_after: float | None = None,
                 unresolved: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.throttled = throttled
        self.retry_after = retry_after
        self.unresolved = unresolved     # the host name did not resolve (offline?): retried once only


class PermanentError(Exception):
    """Retrying will not help (a bad query, a hostile body, a redirect off-host). ``spent``: the
    request's ``Extra.allowance`` is used up, so no request drawing on it is sent again this run."""

    def __init__(self, reason: str, *, spent: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.spent = spent


class QueryRefused(PermanentError):
    """The server refused the request as written (arXiv's error entry): the source's query is wrong."""


class FetchError(SiteError):
    """A source could not be fetched after the retries; its cache is left as it was."""

    def __init__(self, url: str, reason: str, attempts: int, hint: str | None = None,
                 refused: bool = False, unresolved: bool = False) -> None:
        self.url = url
        self.reason = reason
        self.attempts = attempts
        self.refused = refused       # a QueryRefused: fix the author file, fetching again will not help
        self.unresolved = unresolved  # the host name did not resolve: offline, or a wrong address
        tries = f" after {attempts} attempt{'s' if attempts != 1 else ''}" if attempts else ""
        super().__init__(f"{url}: {reason}{tries}", hint=hint, exit_code=EXIT_REFUSED if refused else EXIT_UPSTREAM)


@dataclass(frozen=True, slots=True)
class Response:
    url: str
    status: int
    headers: Mapping[str, str]
    body: bytes
    seconds: float


@dataclass(frozen=True, slots=True)
class Extra:
    """What one kind of source adds to its requests: headers (ORCID's ``Accept: application/json``),
    statuses its ``accept`` judges instead of the retry loop (OpenAlex's 429: the day's allowance is
    spent, retrying is pointless), and a secret query part (``api_key=...``) that the transport adds
    to the request line only: it is never part of the URL that is logged, raised or kept. ``allowance``
    names a budget shared by every source of the kind ('openalex'): once spent, see ``PermanentError``."""

    headers: tuple[tuple[str, str], ...] = ()
    own_statuses: frozenset[int] = frozenset()
    secret_query: str = ""
    allowance: str = ""


@dataclass(frozen=True, slots=True)
class ClientPolicy:
    delay_seconds: float = 3.0
    timeout_seconds: float = 30.0
    retries: int = 4
    retry_after_cap: float = 120.0
    max_bytes: int = MAX_BYTES


@dataclass(slots=True)
class Clock:
    monotonic: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    wall: Callable[[], datetime] = field(default=lambda: datetime.now(timezone.utc))
    random: Callable[[], float] = random.random


def user_agent(contact: str | None) -> str:
    """``authorsite/0.1.0 (+mailto:me@example.org)``; control characters and parentheses dropped."""
    ua = f"authorsite/{__version__}"
    if contact:
        c = "".join(ch for ch in contact if 32 < ord(ch) < 127 and ch not in "()")
        if c:
            if "@" in c and not c.startswith(("mailto:", "http://", "https://")):
                c = "mailto:" + c
            ua += f" (+{c})"
    return ua


def is_arxiv_host(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    return host == "arxiv.org" or host.endswith(".arxiv.org")


def check_polite(url: str, delay_seconds: float, where: str = "site.yaml") -> None:
    """Refuse to run faster than arXiv allows against arXiv itself (any other host is up to its owner)."""
    if is_arxiv_host(url) and delay_seconds < ARXIV_MIN_DELAY:
        raise SiteError(f"'fetch.delay_seconds' is {delay_seconds:g} s, but arXiv allows at most one request "
                        f"every {ARXIV_MIN_DELAY:g} s ({url})", path=where,
                        hint="set fetch.delay_seconds to 3 or more; smaller delays are only for a local "
                             "mirror or test server (ARXIV_API_URL)")


class HttpClient:
    """GET with one connection, spacing, deadline, size cap and retries. Use as a context manager."""

    def __init__(self, policy: ClientPolicy, *, contact: str | None = None,
                 clock: Clock | None = None, transport: httpx.BaseTransport | None = None) -> None:
        self.policy = policy
        self.clock = clock or Clock()
        self.requests = 0
        self._last_end: float | None = None
        self._unresolved: dict[str, str] = {}     # host -> why, for the rest of this run
        self._spent: dict[str, str] = {}          # allowance -> why, for the rest of this run
        self._backend = DeadlineBackend(self.clock.monotonic)
        self._client = httpx.Client(
            timeout=httpx.Timeout(policy.timeout_seconds),
            follow_redirects=False,
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),   # for proxy mounts too
            headers={"User-Agent": user_agent(contact),
                     "Accept": "application/atom+xml, application/rss+xml, application/xml;q=0.9, */*;q=0.1"},
            transport=transport or DeadlineTransport(self._backend),
        )

    def __enter__(self) -> "HttpClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    # ------------------------------------------------------------------ the retry loop

    def get(self, url: str, accept: Callable[[Response], T], *, request: Extra | None = None) -> T:
        """Fetch ``url`` and return ``accept(response)``, retrying transient failures.

        ``accept`` sees every response whose status is not retried by itself (200, and
        4xx so that an API can report its own error message, and ``request.own_statuses``);
        it raises ``TransientError`` to ask for another try or ``PermanentError`` to give up.
        """
        extra = request or Extra()
        check_polite(url, self.policy.delay_seconds)
        host = (urlsplit(url).hostname or "").lower()
        if host in self._unresolved:
            raise FetchError(url, f"{self._unresolved[host]} (earlier in this run; not tried again)", 0,
                             hint=_hint("", unresolved=True), unresolved=True)
        if extra.allowance in self._spent:
            raise FetchError(url, f"{self._spent[extra.allowance]} (said earlier in this run; not asked again)", 0)
        attempts = 0
        while True:
            attempts += 1
            try:
                response = self._request(url, extra)
                value = accept(response)
                if response.status != 200:
                    raise PermanentError(f"HTTP {response.status}")
                return value
            except PermanentError as exc:
                if exc.spent and extra.allowance:
                    self._spent[extra.allowance] = exc.reason
                refused = isinstance(exc, QueryRefused)
                hint = "fix the query in the author file; the cached records were kept" if refused else None
                raise FetchError(url, exc.reason, attempts, hint=hint or _hint(exc.reason), refused=refused) from None
            except TransientError as exc:
                # one count of tries for the log and the error: "attempt 2 of 2", then "after 2 attempts"
                retries = min(self.policy.retries, DNS_RETRIES) if exc.unresolved else self.policy.retries
                if attempts > retries and exc.unresolved:
                    self._unresolved[host] = exc.reason
                    raise FetchError(url, exc.reason, attempts, hint=_hint(exc.reason, unresolved=True),
                                     unresolved=True) from None
                if attempts > retries:
                    raise FetchError(url, exc.reason, attempts, hint=_hint(exc.reason, exc.throttled)) from None
                wait = self._backoff(attempts, exc)
                if wait is None:
                    raise FetchError(
                        url, f"{exc.reason}; the server asked to wait {exc.retry_after:.0f} s (Retry-After), "
                             f"more than fetch.retry_after_cap ({self.policy.retry_after_cap:g} s), so gave up",
                        attempts, hint=_hint(exc.reason, True)) from None
                # Under its source's "fetching" line, without the URL: the error that gives up names
                # it, so a fetch prints each URL once (-v: here too).
                log.debug("  %s", url)
                log.info("  %s; retrying in %.1f s (attempt %d of %d)", exc.reason, wait, attempts + 1, retries + 1)
                self.clock.sleep(wait)

    def _backoff(self, attempts: int, exc: TransientError) -> float | None:
        """Exponential back-off with equal jitter; at least Retry-After; None if that is above the cap."""
        cap = self.policy.retry_after_cap
        if exc.retry_after is not None and exc.retry_after > cap:
            return None
        base = max(self.policy.delay_seconds, 0.1) * (2 if exc.throttled else 1)
        span = min(base * 2 ** (attempts - 1), max(cap, base))
        wait = span / 2 + self.clock.random() * span / 2
        return max(wait, exc.retry_after or 0.0)

    # ------------------------------------------------------------------ one request (and same-host redirects)

    def _request(self, url: str, extra: Extra) -> Response:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            response = self._once(current, extra)
            if response.status in (301, 302, 303, 307, 308) and "location" in response.headers:
                target = _without_secret(urljoin(current, response.headers["location"]), extra.secret_query)
                if not _same_host(current, target):
                    raise PermanentError(f"redirected to another host ({target}); not followed")
                log.debug("%s: redirected to %s", current, target)
                current = target
                continue
            if response.status in extra.own_statuses:
                return response
            if response.status in (429, 406) or response.status >= 500:
                throttled = response.status in (429, 406, 503)
                raise TransientError(f"HTTP {response.status}" + (" (throttled)" if throttled else ""),
                                     throttled=throttled,
                                     retry_after=parse_retry_after(response.headers.get("retry-after"),
                                                                   self.clock.wall()))
            return response
        raise PermanentError(f"more than {MAX_REDIRECTS} redirects")

    def _wait_turn(self) -> None:
        if self._last_end is None:
            return
        wait = self._last_end + self.policy.delay_seconds - self.clock.monotonic()
        if wait > 0:
            self.clock.sleep(wait)

    def _once(self, url: str, extra: Extra) -> Response:
        self._wait_turn()
        self.requests += 1
        start = self.clock.monotonic()
        deadline = start + self.policy.timeout_seconds
        self._backend.deadline = deadline
        received = [0]
        try:
            ext = {SECRET_QUERY: extra.secret_query.encode()} if extra.secret_query else None
            with self._client.stream("GET", url, headers=dict(extra.headers) or None, extensions=ext) as r:
                headers = {k.lower(): v for k, v in r.headers.items()}
                body = self._read_body(r, headers, deadline, received)
        except (httpx.TimeoutException, httpcore.TimeoutException):
            raise TransientError(f"timed out: no complete answer within the {self.policy.timeout_seconds:g} s "
                                 f"deadline ({received[0]:,} bytes received)") from None
        except (httpx.UnsupportedProtocol, httpx.InvalidURL, httpcore.UnsupportedProtocol) as exc:
            raise PermanentError(f"unsupported URL ({exc})") from None
        except (httpx.HTTPError, httpcore.NetworkError, httpcore.ProtocolError, httpcore.ProxyError) as exc:
            if _unresolved(exc):
                raise TransientError(f"the host name {urlsplit(url).hostname!r} could not be resolved ({exc})",
                                     unresolved=True) from None
            raise TransientError(f"connection failed ({type(exc).__name__}: {exc})") from None
        finally:
            self._backend.deadline = None
            self._last_end = self.clock.monotonic()
        seconds = self._last_end - start
        log.debug("GET %s -> %d, %d bytes in %.2f s", url, r.status_code, len(body), seconds)
        return Response(url=url, status=r.status_code, headers=headers, body=body, seconds=seconds)

    def _read_body(self, r: httpx.Response, headers: Mapping[str, str], deadline: float,
                   received: list[int]) -> bytes:
        cap = self.policy.max_bytes
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap and "content-encoding" not in headers:
            raise PermanentError(f"response of {int(declared):,} bytes is larger than the {cap:,}-byte limit")
        chunks: list[bytes] = []
        size = 0
        for chunk in r.iter_bytes():
            size += len(chunk)
            received[0] = size
            if size > cap:
                raise PermanentError(f"response body exceeded the {cap:,}-byte limit; stopped reading")
            if self.clock.monotonic() > deadline:
                raise TransientError(f"timed out: no complete answer within the {self.policy.timeout_seconds:g} s "
                                     f"deadline ({size:,} bytes received); stopped reading")
            chunks.append(chunk)
        return b"".join(chunks)


def parse_retry_after(value: str | None, now: datetime) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date); None if absent or unreadable."""
    if not value:
        return None
    v = value.strip()
    if v.isdigit():
        return float(v)
    import email.utils   # (only fetching reads it: see generator.sources.text._parse_rfc822)

    try:
        when = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - now).total_seconds())


def _without_secret(url: str, secret: str) -> str:
    """``url`` without the secret query's parameter: a redirect that echoes ``api_key=...`` in its
    Location must not bring the key into a URL we log (the transport adds it again)."""
    name = secret.split("=", 1)[0]
    if not name:
        return url
    parts = urlsplit(url)
    kept = "&".join(p for p in parts.query.split("&") if p and p.split("=", 1)[0] != name)
    return urlunsplit(parts._replace(query=kept))


def _same_host(a: str, b: str) -> bool:
    pa, pb = urlsplit(a), urlsplit(b)
    if pb.scheme not in ("http", "https") or pa.hostname != pb.hostname:
        return False
    default = {"http": 80, "https": 443}
    port_a = pa.port or default.get(pa.scheme)
    port_b = pb.port or default.get(pb.scheme)
    # http -> https on the same host is the one scheme change allowed (arXiv's own 301).
    return port_a == port_b or (pa.scheme, pb.scheme) == ("http", "https")


def _unresolved(exc: BaseException) -> bool:
    """Whether a connection error is a failed name lookup (``socket.gaierror`` somewhere in its chain)."""
    seen: BaseException | None = exc
    for _ in range(5):
        if seen is None:
            return False
        if isinstance(seen, socket.gaierror):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _hint(reason: str, throttled: bool = False, unresolved: bool = False) -> str:
    if unresolved:
        return ("the host name could not be resolved: this machine looks offline, or the address in "
                "site.yaml fetch.arxiv_api / the feed URL is wrong; the cached records were kept and the "
                "site can still be built from them")
    if throttled:
        return ("the server is throttling requests; the cached records were kept; run 'authorsite fetch' "
                "again later (or raise fetch.delay_seconds)")
    return "the cached records were kept; run 'authorsite fetch' again later, or check the source's URL"
