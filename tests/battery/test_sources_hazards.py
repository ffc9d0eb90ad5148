"""Hostile feed content and network states end to end (battery B and C cases that tests/sources
covers only at the parser, or not at all):
fake arXiv -> ``authorsite fetch`` -> ``authorsite build`` -> the page.

B10 (HTML/XHTML-typed fields and hostile links), B12 (template syntax), B14 (absurd sizes:
the page stays under 1 MB), B27 (Unicode), C12 (no network: build from cache, stale
sources are warnings that --strict turns into a failure), C13 (a corrupt cache file at
build time).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from atomgen import entry_xml, feed_xml
from batterykit import page_problems, parse_page, run_limited, write_files
from fakearxiv import Reply, Script

BASE_PATH = "/"


def _site(root: Path, api: str, authors: dict[str, str]) -> Path:
    from fetchkit import write_site

    return write_site(root, authors, api=api, delay=0.05, retries=0)


def _fetch_and_build(root: Path) -> Path:
    fetched = run_limited("-C", root, "fetch", "--strict", timeout=60)
    assert fetched.returncode == 0, fetched.stderr
    built = run_limited("-C", root, "build", timeout=60)
    assert built.returncode == 0, built.stderr
    return root / "output"


def _inert(out: Path) -> None:
    problems = []
    for page in out.rglob("*.html"):
        problems += [f"{page.relative_to(out)}: {p}" for p in page_problems(page.read_text("utf-8"), BASE_PATH, ())]
    assert not problems, "\n".join(problems[:20])


JANE = "name: Jane Doe\nsources:\n  - arxiv: 'au:\"Jane Doe\"'\n"

B10_ENTRY = """\
  <entry xml:base="https://evil.example/">
    <id>http://arxiv.org/abs/2401.01234v1</id>
    <title type="html">HTML title &lt;form action="javascript:alert(1)"&gt;&lt;button&gt;Download PDF&lt;/button&gt;&lt;/form&gt; &lt;a href="&amp;#106;avascript:alert(2)"&gt;x&lt;/a&gt;</title>
    <updated>2024-05-22T16:11:45Z</updated>
    <link href="javascript:alert(3)" rel="alternate" type="text/html"/>
    <link href="relative/path" rel="related" title="pdf"/>
    <summary type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">XHTML summary <a href="&#106;avascript:alert(4)">y</a><!--><img src="x" onerror="alert(5)"/>--><svg xmlns="http://www.w3.org/2000/svg"><a xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="javascript:alert(6)">z</a></svg><div style="background:url(javascript:alert(7))">s</div><img src="file:///etc/passwd"/></div></summary>
    <category term="cs.DB" scheme="http://arxiv.org/schemas/atom"/>
    <published>2024-05-22T16:11:45Z</published>
    <arxiv:primary_category term="cs.DB"/>
    <author><name>Jane Doe</name></author>
  </entry>
"""


def test_b10_b11_html_typed_fields_and_feed_links_never_become_markup(arxiv_server, tmp_path: Path) -> None:
    s = arxiv_server(Script(Reply(feed_xml([B10_ENTRY], total=1))))
    out = _fetch_and_build(_site(tmp_path / "site", s.url, {"jane-doe": JANE}))
    _inert(out)
    html = (out / "authors/jane-doe/index.html").read_text("utf-8")
    assert "evil.example" not in html and "relative/path" not in html
    doc = parse_page(html)
    text = "".join(doc.text)
    assert 'HTML title <form action="javascript:alert(1)">' in text          # shown as text
    hrefs = [v for _, a, v in doc.urls if a == "href"]
    assert "https://arxiv.org/abs/2401.01234" in hrefs                       # rebuilt from the validated id


def test_b12_template_syntax_from_a_feed_is_printed_literally(arxiv_server, tmp_path: Path) -> None:
    title = "{{ 7*7 }} {% include 'base.html' %} {{ config }} {# comment #}"
    s = arxiv_server(Script(Reply(feed_xml([entry_xml("2401.01234", title=title, summary=title)], total=1))))
    out = _fetch_and_build(_site(tmp_path / "site", s.url, {"jane-doe": JANE}))
    text = "".join(parse_page((out / "authors/jane-doe/index.html").read_text("utf-8")).text)
    assert title in text and "49" not in text


def test_b14_absurd_sizes_keep_the_page_under_a_megabyte(arxiv_server, tmp_path: Path) -> None:
    authors = [f"Author {i}" for i in range(3000)]
    authors[2500] = "Jane Doe"                                  # the profile owner, far down the list
    entry = entry_xml("2401.01234", title="Long " + "T" * 200_000, summary="S " * 500_000, authors=authors,
                      comment="C" * 100_000, journal_ref="J" * 100_000)
    s = arxiv_server(Script(Reply(feed_xml([entry], total=1))))
    out = _fetch_and_build(_site(tmp_path / "site", s.url, {"jane-doe": JANE}))
    page = out / "authors/jane-doe/index.html"
    assert page.stat().st_size < 1_000_000, f"{page.stat().st_size} bytes"
    text = "".join(parse_page(page.read_text("utf-8")).text)
    # All 3,000 names are kept (up to 10,000, issue 15); the page shows the first ones, the profile's
    # owner where they stand, and "and N more".
    assert "Long TTTT" in text and "(2,501st of 3,000)" in text and "and 2,989 more" in text
    assert max(p.stat().st_size for p in out.rglob("*.html")) < 1_000_000


UNICODE_NAMES = ["张伟", "محمد علي", "דוד כהן", "Zoe\u0308 Mu\u0308ller", "Emoji 🧪 Person", "𝔘𝔫𝔦 Code",
                 "Ev\u202eil\u202c Override", "Zero\u200bWidth"]


def test_b27_unicode_names_and_text(arxiv_server, tmp_path: Path) -> None:
    entry = entry_xml("2401.01234", title="CJK 深度学习 RTL عربى emoji 🧪 astral 𝔘 \u202ereversed",
                      summary="Zoe\u0308 (NFD) and Zoë (NFC)", authors=["Jane Doe", *UNICODE_NAMES])
    s = arxiv_server(Script(Reply(feed_xml([entry], total=1))))
    root = _site(tmp_path / "site", s.url, {"jane-doe": JANE, "zoe-muller": "name: Zoë Müller\n"})
    out = _fetch_and_build(root)
    html = (out / "authors/jane-doe/index.html").read_text("utf-8")
    assert '<meta charset="utf-8">' in html
    assert "\u202e" not in html, "a bidi override from the feed reached the page"
    for name in ("张伟", "محمد علي", "דוד כהן", "Emoji 🧪 Person", "𝔘𝔫𝔦 Code", "深度学习", "🧪"):
        assert name in html, name
    _inert(out)


def test_b27_nfd_coauthor_links_to_the_nfc_profile(arxiv_server, tmp_path: Path) -> None:
    entry = entry_xml("2401.01234", title="Joint work", authors=["Jane Doe", "Zoe\u0308 Mu\u0308ller"])
    s = arxiv_server(Script(Reply(feed_xml([entry], total=1))))
    root = _site(tmp_path / "site", s.url, {"jane-doe": JANE, "zoe-muller": "name: Zoë Müller\n"})
    out = _fetch_and_build(root)
    doc = parse_page((out / "authors/jane-doe/index.html").read_text("utf-8"))
    assert any(v.endswith("/authors/zoe-muller/") for _, a, v in doc.urls if a == "href"), \
        "the NFD spelling of a profiled co-author is not linked to the profile"
    assert unicodedata.normalize("NFC", "Zoe\u0308") == "Zoë"


def test_b27_rtl_names_are_isolated(arxiv_server, tmp_path: Path) -> None:
    entry = entry_xml("2401.01234", title="عنوان عربي", authors=["Jane Doe", "محمد علي"])
    s = arxiv_server(Script(Reply(feed_xml([entry], total=1))))
    out = _fetch_and_build(_site(tmp_path / "site", s.url, {"jane-doe": JANE}))
    html = (out / "authors/jane-doe/index.html").read_text("utf-8")
    i = html.index("محمد علي", html.index("<body"))   # the page's byline (the head's JSON-LD names it too)
    before = html[max(0, i - 200):i]
    assert before.rfind("<bdi") > before.rfind(">", 0, before.rfind("<bdi")) or 'dir="auto"' in before[-120:], before


# ============================================================================ C12, C13


def _offline_site(root: Path) -> Path:
    """An arXiv source and a typed-in record; the API is a closed loopback port (no network)."""
    write_files(root, {
        "site.yaml": "title: T\nbase_url: /\nfetch: {arxiv_api: 'http://127.0.0.1:9/api/query', delay_seconds: 0.05, "
                     "retries: 0, timeout_seconds: 2}\n",
        "content/authors/jane-doe.yaml": JANE + "  - records:\n      - {title: Typed in, year: 2020}\n",
        "content/authors/ann.yaml": "name: Ann\nsources:\n  - records:\n      - {title: Ann typed, year: 2021}\n",
    })
    return root


def test_c12_no_network_build_from_cache_warns_and_strict_fails(tmp_path: Path) -> None:
    root = _offline_site(tmp_path / "site")
    fetched = run_limited("-C", root, "fetch", timeout=60)
    assert fetched.returncode == 3 and "could not be fetched" in fetched.stderr and "Traceback" not in fetched.stderr
    assert run_limited("-C", root, "fetch", "--strict", timeout=60).returncode == 3   # --strict: now the default
    built = run_limited("-C", root, "build")
    assert built.returncode == 0, built.stderr
    assert "warning" not in built.stderr, built.stderr   # never fetched: check says so, not every build
    checked = run_limited("-C", root, "check")
    assert "content/authors/jane-doe.yaml:" in checked.stderr and "not fetched yet" in checked.stderr
    assert "Typed in" in (root / "output/authors/jane-doe/index.html").read_text("utf-8")   # never an empty site
    before = (root / "output/index.html").read_bytes()
    strict = run_limited("-C", root, "build", "--strict")
    assert strict.returncode == 1 and "--strict is on" in strict.stderr and "Traceback" not in strict.stderr
    assert (root / "output/index.html").read_bytes() == before


@pytest.mark.parametrize("damage", [b'{"format": 1, "records": [', b'{"format": 99, "records": []}\n', b"\xff\xfe",
                                    b'{"format": 1, "records": [{"title": "no key"}]}\n', b"[]\n"],
                         ids=["truncated", "wrong-format", "not-utf8", "bad-record", "not-a-mapping"])
def test_c13_corrupt_cache_file_at_build_time(tmp_path: Path, damage: bytes) -> None:
    from batterykit import record, seed_cache

    root = _offline_site(tmp_path / "site")
    path = seed_cache(root, "jane-doe", [record(1, authors=("Jane Doe",))], 'au:"Jane Doe"')
    path.write_bytes(damage)
    built = run_limited("-C", root, "build")
    assert built.returncode == 0 and "Traceback" not in built.stderr, built.stderr
    told = ("record 1: no 'key'; this record is left out" if b"no key" in damage   # the rest of the file builds
            else "ignoring it until the next good fetch")
    assert "content/cache/jane-doe/" in built.stderr and told in built.stderr, built.stderr
    assert "Typed in" in (root / "output/authors/jane-doe/index.html").read_text("utf-8")
    assert (root / "output/authors/ann/index.html").is_file()
    assert path.read_bytes() == damage                  # a build never rewrites the cache
    strict = run_limited("-C", root, "build", "--strict")
    assert strict.returncode == 1 and "Traceback" not in strict.stderr

