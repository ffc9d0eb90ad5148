"""Fixtures of the sources tests (generator.sources, generator.fetch.run, generator.store.reader):
a fake arXiv server per test and small sites.

Everything talks real HTTP to 127.0.0.1 with real time, so delays are kept small
(``delay_seconds`` 0.1-0.2, Retry-After of 1 s) to keep the suite well under a minute.
Proxy variables are removed so that httpx never routes loopback through a proxy.
Helpers that tests import live in ``fetchkit`` and ``atomgen``; the server in ``fakearxiv``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fakearxiv import arxiv_server  # noqa: E402,F401  (a fixture, shared with the battery)
from fetchkit import JANE, write_site  # noqa: E402

from generator.config import SiteConfig, load_site  # noqa: E402


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("ARXIV_API_URL", raising=False)




@pytest.fixture
def site(tmp_path: Path) -> Callable[..., SiteConfig]:
    """``site(api, **policy)``: a one-author site (jane-doe) and its loaded configuration."""
    def make(api: str, authors: dict[str, str] | None = None, **policy: float) -> SiteConfig:
        root = write_site(tmp_path / "site", authors or {"jane-doe": JANE}, api=api, **policy)
        return load_site(root)
    return make


