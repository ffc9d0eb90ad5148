"""The real ``authorsite`` executable against the fake arXiv: fetch, build, review, --strict, bombs.

``ARXIV_API_URL=http://127.0.0.1:PORT/api/query authorsite fetch`` then ``authorsite build``
puts the fetched records on the author's page; ``authorsite review bin-cui`` on a cache with
namesake records shows which rule dropped each.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from atomgen import entry_xml, feed_xml
from fakearxiv import Corpus, Reply, Script
from fetchkit import HAZARDS, SAMPLE_2026, run_cli, write_site

MEMORY_LIMIT = 256 << 20          # enough for the CLI; far too little for an expanded entity bomb


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


class Record(HTMLParser):
    """Text and links of one ``<li class="record">`` of a built page."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.hrefs: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attrs.extend(attrs)
        self.hrefs.extend(v for k, v in attrs if k == "href" and v)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def record_items(page: str) -> list[str]:
    return [chunk.split("</li>", 1)[0] for chunk in re.split(r'<li class="record"', page)[1:]]


def record_html(page: str, marker: str) -> Record:
    """The one record item of the page that mentions ``marker``."""
    (item,) = [i for i in record_items(page) if marker in i]
    parsed = Record()
    parsed.feed('<li class="record"' + item)
    return parsed


def test_fetch_then_build_puts_records_on_the_author_page(arxiv_server, tmp_path: Path) -> None:
    s = arxiv_server(Script(Reply(SAMPLE_2026.read_bytes())))
    root = write_site(tmp_path / "site", {"jane-doe": """\
        name: Jane Doe
        sources:
          - arxiv: {query: 'au:"Jane Doe"'}
          - records:
              - title: Towards Explainable Test Case Prioritisation with Learning-to-Rank Models
                year: 2024
                source: Workshop
        """}, api="https://export.arxiv.org/api/query", delay=0.2, page_size=15, max_results=15)
    env = {"ARXIV_API_URL": s.url}
    fetched = run_cli(root, "fetch", env=env)
    assert fetched.returncode == 0, fetched.stderr
    assert "jane-doe: arXiv 'au:\"Jane Doe\"': 1 request, 15 new, 0 updated" in fetched.stderr
    assert re.search(r"^jane-doe\s+arXiv 'au:\"Jane Doe\"'\s+1\s+15\s+0\s+15\s+written$", fetched.stderr, re.M)
    assert s.hits[0].headers["user-agent"] == "authorsite/0.1.0 (+mailto:tests@example.org)"
    built = run_cli(root, "build")
    assert built.returncode == 0, built.stderr
    page = (root / "output" / "authors" / "jane-doe" / "index.html").read_text("utf-8")

    r = record_html(page, "arXiv:2202.12139")
    text = " ".join(" ".join(r.text).split())
    assert "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques" in text
    assert all(n in text for n in ("Mohit Kumar Ahuja", "Arnaud Gotlieb", "Helge Spieker"))
    assert "2022-02-24" in text and "2022" in text
    assert "10.1109/ICSTW55395.2022.00035" in text and "ICSTW" in text        # DOI and journal reference
    assert "Artificial Intelligence in Software Testing 2022 workshop @ ICST 2022" in text   # comment
    assert "https://doi.org/10.1109/ICSTW55395.2022.00035" in r.hrefs
    assert "https://arxiv.org/abs/2202.12139" in r.hrefs and "https://arxiv.org/pdf/2202.12139" in r.hrefs
    assert any(h.endswith("subjects/cs.SE/") for h in r.hrefs) and any(h.endswith("subjects/cs.LG/") for h in r.hrefs)
    # the typed-in copy of a fetched paper merged into one record (same title and year)
    assert len(record_items(page)) == 15
    (merged,) = [i for i in record_items(page) if "Towards Explainable Test Case Prioritisation" in i]
    assert "arXiv:2405.13786" in merged
    # aliases were mapped: 2403.16981 is filed under cs.IT (math.IT) and math.ST (stat.TH)
    assert (root / "output" / "subjects" / "cs.IT" / "index.html").is_file()


def test_failed_fetch_keeps_the_cache_and_exits_3(arxiv_server, tmp_path: Path) -> None:
    good = arxiv_server(Corpus([entry_xml("2401.01234", title="Kept through the outage")]))
    root = write_site(tmp_path / "site", {"jane-doe": "name: Jane Doe\nsources:\n  - arxiv: 'au:\"Jane Doe\"'\n"},
                      api=good.url, delay=0.05, retries=1)
    assert run_cli(root, "fetch").returncode == 0
    (cache_file,) = (root / "content" / "cache" / "jane-doe").glob("*.json")
    before = cache_file.read_bytes()

    html = (HAZARDS / "html-error-page.html").read_bytes()
    bad = arxiv_server(Script(Reply(html, content_type="text/html")))
    env = {"ARXIV_API_URL": bad.url}
    lenient = run_cli(root, "fetch", env=env)
    assert lenient.returncode == 3      # an outage is not silent any more (--strict is no longer needed)
    assert "warning: jane-doe: arXiv 'au:\"Jane Doe\"' could not be fetched" in lenient.stderr
    assert bad.url in lenient.stderr and "HTML page" in lenient.stderr
    assert "FAILED, cache kept" in lenient.stderr
    strict = run_cli(root, "fetch", "--strict", env=env)
    assert strict.returncode == 3
    assert "error: 1 source(s) could not be fetched (jane-doe)" in strict.stderr
    assert "upstream unavailable" in strict.stderr
    assert cache_file.read_bytes() == before
    built = run_cli(root, "build")
    assert built.returncode == 0
    assert "Kept through the outage" in (root / "output" / "authors" / "jane-doe" / "index.html").read_text("utf-8")


@pytest.mark.parametrize("name", ["quadratic-blowup.xml", "billion-laughs.xml", "external-entity.xml"])
def test_entity_bombs_are_refused_under_a_memory_limit(arxiv_server, tmp_path: Path, name: str) -> None:
    s = arxiv_server(Script(Reply((HAZARDS / name).read_bytes())))
    root = write_site(tmp_path / "site", {"jane-doe": "name: Jane Doe\nsources:\n  - arxiv: 'au:\"Jane Doe\"'\n"},
                      api=s.url, delay=0.05)
    res = run_cli(root, "fetch", "--strict", timeout=30, preexec=limit_memory)
    assert res.returncode == 3, res.stderr
    assert "DOCTYPE or ENTITY" in res.stderr and "MemoryError" not in res.stderr
    assert len(s.hits) == 1 and not (root / "content" / "cache").exists()


def test_the_memory_limit_would_catch_a_regression() -> None:
    """Control: feedparser on the raw quadratic bomb under the same limit runs out of memory."""
    code = "import feedparser, io, sys; feedparser.parse(io.BytesIO(open(sys.argv[1], 'rb').read()))"
    res = subprocess.run([sys.executable, "-c", code, str(HAZARDS / "quadratic-blowup.xml")],
                         capture_output=True, text=True, timeout=60, preexec_fn=limit_memory)
    assert res.returncode != 0 and "MemoryError" in res.stderr


def test_xss_in_every_field_is_escaped_on_the_page(arxiv_server, tmp_path: Path) -> None:
    x = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'><svg onload=alert(3)>'
    entry = entry_xml("2401.01234", title=f"Title {x}", summary=f"Abstract {x}",
                      authors=((f"Name {x}", (f"Aff {x}",)),),
                      comment=f"Comment {x}", journal_ref=f"Journal {x}", doi="javascript:alert(1)",
                      categories=("cs.DB", x), links=("javascript:alert(4)",))
    s = arxiv_server(Script(Reply(feed_xml([entry], total=1))))
    root = write_site(tmp_path / "site", {"jane-doe": "name: Jane Doe\nsources:\n  - arxiv: 'au:\"Jane Doe\"'\n"},
                      api=s.url)
    assert run_cli(root, "fetch").returncode == 0
    assert run_cli(root, "build").returncode == 0
    page = (root / "output" / "authors" / "jane-doe" / "index.html").read_text("utf-8")
    r = record_html(page, "arXiv:2401.01234")
    text = " ".join(r.text)
    for field in ("Title", "Abstract", "Name", "Comment", "Journal"):
        assert f"{field} <script>alert(1)</script>" in text      # shown as text
    assert "<script>alert" not in page and "<img src=x" not in page and "<svg onload" not in page
    assert not [k for k, _ in r.attrs if k.startswith("on")]
    assert not [h for h in r.hrefs if not h.startswith(("https://", "/"))]


BIN_CUI = """\
    name: Bin Cui
    affiliation: Peking University
    sources:
      - arxiv:
          query: 'au:"Bin Cui"'
          categories: [cs.DB, cs.DC, cs.LG]
      - records:
          - title: A paper typed in by hand
            year: 2026
            subjects: [cs.DB]
    include: ['2402.10004']
    exclude: ['2401.10001']
    filters:
      categories: [cs.DB, cs.LG]
      since: 2015
    """


def test_review_shows_which_rule_dropped_each_namesake_record(arxiv_server, tmp_path: Path) -> None:
    entries = [
        entry_xml("2404.10006", title="Distributed training at scale", authors=("Bin Cui",), categories=("cs.DC",),
                  published="2024-04-01T00:00:00Z"),
        entry_xml("2403.10005", title="Optical lattices", authors=("Bin Cui",), categories=("physics.optics",),
                  published="2024-03-01T00:00:00Z"),
        entry_xml("2402.10004", title="Namesake paper we claim anyway", authors=("Bin Cui",),
                  categories=("physics.optics",), published="2024-02-01T00:00:00Z"),
        entry_xml("2401.10001", title="Another Bin Cui's database paper", authors=("Bin Cui",),
                  categories=("cs.DB",), published="2024-01-15T00:00:00Z"),
        entry_xml("2401.10000", title="Query processing", authors=("Bin Cui",), categories=("cs.DB",),
                  published="2024-01-01T00:00:00Z"),
        entry_xml("1001.1234", title="An old database paper", authors=("Bin Cui",), categories=("cs.DB",),
                  published="2010-01-01T00:00:00Z"),
    ]
    s = arxiv_server(Corpus(entries))
    root = write_site(tmp_path / "site", {"bin-cui": BIN_CUI}, api=s.url)
    assert run_cli(root, "fetch").returncode == 0
    res = run_cli(root, "review", "bin-cui")
    assert res.returncode == 0, res.stderr
    columns = [re.split(r"\s{2,}", line.strip()) for line in res.stdout.splitlines()
               if line.startswith(("  KEPT", "  DROPPED")) and "v1" in line]
    lines = {ident.removesuffix("v1"): (verdict, rule) for verdict, ident, _year, _title, rule in columns}
    assert lines == {
        "2404.10006": ("DROPPED", "filters.categories: none of cs.DC in cs.DB, cs.LG"),
        "2403.10005": ("DROPPED", "source categories: none of physics.optics in cs.DB, cs.DC, cs.LG"),
        "2402.10004": ("KEPT", "include: 2402.10004"),
        "2401.10001": ("DROPPED", "exclude: 2401.10001"),
        "2401.10000": ("KEPT", "kept: passes every filter"),
        "1001.1234": ("DROPPED", "filters.since: 2010 is before 2015"),
    }
    assert re.search(r"^  KEPT\s+-\s+2026\s+A paper typed in by hand\s+typed in$", res.stdout, re.M)
    assert "6 fetched record(s): 2 KEPT, 4 DROPPED; 1 typed in (kept)" in res.stdout
    assert res.stdout.startswith("Bin Cui (content/authors/bin-cui.yaml)")
    # the build agrees with the review
    assert run_cli(root, "build").returncode == 0
    page = (root / "output" / "authors" / "bin-cui" / "index.html").read_text("utf-8")
    assert "Query processing" in page and "Namesake paper we claim anyway" in page
    assert "Optical lattices" not in page and "An old database paper" not in page

    unknown = run_cli(root, "review", "bin-cuj")
    assert unknown.returncode == 1 and "did you mean 'bin-cui'?" in unknown.stderr


def test_fetch_one_author_leaves_the_others_alone(arxiv_server, tmp_path: Path) -> None:
    """A lab adding one member fetches that member, not every author (3 s a request on arXiv)."""
    s = arxiv_server(Corpus([entry_xml("2401.01234", title="The new member's paper")]))
    root = write_site(tmp_path / "site", {"jane-doe": "name: Jane Doe\nsources:\n  - arxiv: 'au:\"Jane Doe\"'\n",
                                          "john-roe": "name: John Roe\nsources:\n  - arxiv: 'au:\"John Roe\"'\n"},
                      api=s.url, delay=0.05, retries=0)
    res = run_cli(root, "fetch", "--author", "john-roe")
    assert res.returncode == 0, res.stderr
    assert [h.params["search_query"] for h in s.hits] == ['au:"John Roe"']
    assert list((root / "content" / "cache").glob("john-roe/*.json"))
    assert not (root / "content" / "cache" / "jane-doe").exists()
    bad = run_cli(root, "fetch", "--author", "jon-roe")
    assert bad.returncode == 1 and "no author 'jon-roe'" in bad.stderr and "did you mean 'john-roe'" in bad.stderr
    assert len(s.hits) == 1                      # refused before any request
