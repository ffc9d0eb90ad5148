"""The fetch side of the source kinds: the code each kind names, imported when a fetch runs.

A kind (``config.kind.SourceKind``, one module under ``config/kinds/``) is declared at load, where
nothing of this stage may be imported; it *names* its fetch code as ``"module:function"``
(``fetcher``, and ``checker`` for a check before the first request). ``fetch`` and ``check`` here
import that function by name with ``importlib``, only now, at fetch time: so the configuration
never imports the HTTP client or a parser, and a build, which never fetches, never loads them.

What a kind's fetch code may use is handed to it in ``FetchContext``: the one shared HTTP
client, the site's fetch policy, the environment, the source's cache entry, and ``get_json``
(a JSON answer believed or retried, for a kind whose module has no parser of its own).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, TypeVar

from generator.config.sources import kind_of
from generator.sources.http import HttpClient, PermanentError, Response, TransientError
from generator.sources.works import parse_json

if TYPE_CHECKING:
    from generator.store.cache import CacheEntry
    from generator.config import FetchPolicy
    from generator.core.model import Record
    from generator.sources.outcome import Fetched

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class FetchContext:
    """What a kind's fetch may use: the one shared HTTP client, the site's fetch policy,
    the environment (``ARXIV_API_URL`` and the like), and the source's cache entry."""

    client: HttpClient
    policy: FetchPolicy
    environ: Mapping[str, str]
    entry: CacheEntry | None = None     # the source's cache entry, per source (where a paged fetch stopped)

    def get_json(self, url: str, parse: Callable[[Any], T]) -> T:
        """``parse`` of the JSON document at ``url``. An answer that is not JSON (``works.parse_json``)
        or that ``parse`` refuses with ``ValueError`` (the wrong shape) is retried, then given up
        as a ``FetchError``, which leaves the cache as it was; a status other than 200 is given up."""
        def accept(response: Response) -> T:
            if response.status != 200:
                raise PermanentError(f"HTTP {response.status}")
            document = parse_json(response.body)
            try:
                return parse(document)
            except ValueError as exc:
                raise TransientError(f"not the answer expected: {exc}") from None
        return self.client.get(url, accept)


def _named(path: str) -> Callable[..., Any]:
    """The function a kind names as ``"package.module:function"``, imported now (see the docstring)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def check(source: object, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:
    """Refuse a setting that must not be fetched (too fast for arXiv) before the first request."""
    checker = kind_of(source).checker
    if checker is not None:
        _named(checker)(source, policy, environ, where)


def fetch(source: object, context: FetchContext, cached: Sequence[Record]) -> Sequence[Record] | Fetched | None:
    """The records fetched now (given those cached); None for a kind that is not fetched.
    Raises ``sources.http.FetchError`` when the source cannot be fetched (``sources.outcome``:
    ``Fetched`` and ``PartialFetch`` for a paged source)."""
    fetcher = kind_of(source).fetcher
    return None if fetcher is None else _named(fetcher)(source, context, cached)
