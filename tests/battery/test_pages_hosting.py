"""The built site as GitHub Pages hosts it (battery section F), over the demo build and a
hostile build.

Both are built for a project site (``https://user.github.io/repo/``): every page must
parse, carry no event handler and no script but our own (JSON-LD, filter.js, search.js
and the rest of the theme's scripts), and link only to a relative or ``/repo/``-absolute address, arxiv.org,
doi.org or a URL an author file gave (validated there). 404.html, served at any depth,
uses base-prefixed absolute URLs only. No symlinks or hard links, modes 0644/0755,
total size well under GitHub's 1 GB.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from batterykit import (
    allowed_prefixes,
    make_hostile_site,
    page_problems,
    parse_page,
    site_files,
)
from helpers import copy_demo

from generator.write.linkcheck import check_links

BASE = "https://user.github.io/repo/"
BASE_PATH = "/repo/"


@pytest.fixture(scope="module", params=["demo", "hostile"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, Path]:
    from generator.build import build

    base = tmp_path_factory.mktemp(f"f-{request.param}")
    root = copy_demo(base / "site") if request.param == "demo" else make_hostile_site(base / "site", BASE)
    out = build(root, base_url=BASE, out_dir=base / "published").out_dir
    return request.param, root, out


def test_f1_every_internal_link_resolves_under_the_base(built) -> None:
    _, _, out = built
    assert check_links(out, BASE) == []
    for page in out.rglob("*.html"):
        for tag, attr, value in parse_page(page.read_text("utf-8")).urls:
            if value.startswith("/"):
                assert value.startswith(BASE_PATH), f"{page.relative_to(out)}: <{tag} {attr}={value!r}> misses {BASE_PATH}"


def test_f2_404_page_uses_base_prefixed_absolute_urls(built) -> None:
    _, _, out = built
    page = out / "404.html"
    assert page.is_file()
    doc = parse_page(page.read_text("utf-8"))
    assets = [(t, a, v) for t, a, v in doc.urls if t in ("link", "script", "img")]
    assert assets, "404.html loads no stylesheet?"
    for tag, attr, value in doc.urls:
        if value.startswith(("https://", "http://", "mailto:", "#")):
            continue
        assert value.startswith(BASE_PATH), f"404.html: <{tag} {attr}={value!r}> is relative: broken at depth"


def test_f3_nojekyll_and_no_underscore_names(built) -> None:
    _, _, out = built
    assert (out / ".nojekyll").is_file()
    underscored = [p.relative_to(out).as_posix() for p in out.rglob("_*")]
    assert underscored == [], underscored


def test_f4_size_links_and_modes(built) -> None:
    _, _, out = built
    total = 0
    for p in [out, *out.rglob("*")]:
        st = p.lstat()
        assert not p.is_symlink(), p
        if p.is_dir():
            assert st.st_mode & 0o777 == 0o755, (p, oct(st.st_mode))
        else:
            assert st.st_nlink == 1, f"{p} is hard-linked"
            assert st.st_mode & 0o777 == 0o644, (p, oct(st.st_mode))
            total += st.st_size
    assert total < 100 * 1024 * 1024, f"{total / 1e6:.0f} MB"


def test_f5_every_page_parses_and_is_inert(built) -> None:
    kind, root, out = built
    allowed = allowed_prefixes(root, BASE)
    pages = sorted(out.rglob("*.html"))
    assert len(pages) >= 8
    problems = []
    for page in pages:
        problems += [f"{page.relative_to(out)}: {p}" for p in page_problems(page.read_text("utf-8"), BASE_PATH, allowed)]
    assert not problems, "\n".join(problems[:40])
    for xml in out.rglob("*.xml"):
        ET.parse(xml)


@pytest.mark.parametrize("built", ["hostile"], indirect=True)
def test_f5_hostile_text_is_shown_as_text(built) -> None:
    _, _, out = built
    text = "".join(parse_page((out / "authors/eve/index.html").read_text("utf-8")).text)
    assert "<script>alert(1)</script>" in text and '"><img src=x onerror=alert(2)>' in text
    assert "{{ 7*7 }}" in text and "49" not in text.replace("2049", "")


def test_f_every_file_is_readable_by_others(built) -> None:
    _, _, out = built
    for p in site_files(out):
        assert os.stat(p).st_mode & 0o004, p

