"""Helpers of the ORCID, DBLP and OpenAlex tests: a one-source site on the fake server, and
the check that a bad answer leaves the cache file byte-identical."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping

from fakearxiv import FakeArxiv, Reply, Script
from fetchkit import FIXTURES, cache_path

from generator.config import SiteConfig
from generator.fetch.run import SourceResult, fetch_site

OTHER = FIXTURES / "other-samples"


def base(server: FakeArxiv) -> str:
    """The base URL the paths of ORCID, DBLP and OpenAlex hang from, on the fake server."""
    return f"http://127.0.0.1:{server.port}"


def one_source_site(site: Callable[..., SiteConfig], server: FakeArxiv, source_yaml: str,
                    **policy: float) -> SiteConfig:
    """A site whose only author (jane-doe) has the one source given as YAML (``orcid: ...``)."""
    return site(server.url, {"jane-doe": f"name: Jane Doe\nsources:\n  - {source_yaml}\n"}, **policy)


def fetch_one(config: SiteConfig, environ: Mapping[str, str]) -> SourceResult:
    (result,) = fetch_site(config, environ=environ).results
    return result


def assert_bad_answers_keep_cache(server: FakeArxiv, config: SiteConfig, environ: Mapping[str, str],
                                  cases: list[tuple[Reply, str]]) -> None:
    """Each reply (answered to every try) fails the source with ``message`` in its error and leaves the
    cache file byte-identical."""
    path: Path = cache_path(config)
    before = path.read_bytes()
    for reply, message in cases:
        server.responder = Script(reply)
        result = fetch_one(config, environ)
        assert message in (result.error or ""), (message, result.error)
        assert (result.written, result.records) == (False, len(result_records(before)))
        assert path.read_bytes() == before, message


def result_records(cache_bytes: bytes) -> list[object]:
    import json

    return json.loads(cache_bytes)["records"]
