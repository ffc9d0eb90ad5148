"""Fixtures of the reliability battery: a good small site built once, copies of it per
test, and a fake arXiv server (tests/sources' fakearxiv, on 127.0.0.1)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for extra in (HERE, HERE.parent / "sources"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from batterykit import make_good_site  # noqa: E402
from helpers import fresh_copy  # noqa: E402
from fakearxiv import arxiv_server  # noqa: E402,F401  (a fixture, from tests/sources)


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "ARXIV_API_URL"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(scope="session")
def _good_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from generator.build import build

    root = make_good_site(tmp_path_factory.mktemp("battery-good") / "site")
    build(root)
    assert (root / "output" / "authors" / "ada" / "index.html").is_file()
    return root


@pytest.fixture
def good_site(_good_template: Path, tmp_path: Path) -> Path:
    """A small site with a cache file and a good build in output/ (a private copy)."""
    return fresh_copy(_good_template, tmp_path / "site")


