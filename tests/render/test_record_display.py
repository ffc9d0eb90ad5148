"""What a record's entry shows (issue 15, items 6, 9, 10, 12): affiliations, versions, class
terms, comment links, subject chip counts, and bounded author lists.

Pages are built for real from the two recorded arXiv responses in tests/fixtures/arxiv-samples
(copies of ../shared/data/arxiv-samples), parsed by the real parser and written to the cache in
the cache format, as a fetch leaves them. A synthetic record of 2,501 authors (the profiled
author at 1,204) is added the same way for the size bound. ``sample_site`` is shared with
test_record_display_browser.py (chips clicked in Chromium, vnu and axe on these pages).
"""

from __future__ import annotations

import json
import re
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import pytest

from generator.assemble import byline
from generator.store import cache
from generator.core import routes
from generator.build import build
from generator.config import load_site
from generator.core.model import ET_AL, Person, Record
from generator.sources.arxiv import parse_page
from generator.sources.text import MAX_AUTHORS

SAMPLES = Path(__file__).resolve().parent.parent / "fixtures" / "arxiv-samples"
SAMPLE_2019 = SAMPLES / "arxiv-api-2019-search-all-science-start0-max10.xml"
SAMPLE_2026 = SAMPLES / "arxiv-api-2026-search-all-testing-start0-max15.xml"
BASE_URL = "https://example.github.io/authorsite/"
BIG_TOTAL, BIG_AT = 2501, 1204


# --- the sample site -----------------------------------------------------------------------------

def big_record() -> Record:
    """2,501 authors, each with an affiliation; Jane Doe (a profiled author) at 1,204."""
    people = [Person(f"Member{i:04d} Collab", (f"Institute {i % 40} of the Collaboration",))
              for i in range(1, BIG_TOTAL + 1)]
    people[BIG_AT - 1] = Person("Jane Doe", ("Institute of Testing",))
    return Record(key="arxiv:2501.01234", title="A measurement by a very large collaboration", year=2025,
                  arxiv_id="2501.01234", version=1, authors=tuple(people), abstract="We measure.",
                  published="2025-01-03T10:00:00Z", updated="2025-01-03T10:00:00Z", primary_subject="hep-ex",
                  subjects=("hep-ex", "cs.SE"))


def sample_site(root: Path, *, big: bool = False, authors_shown: int | None = None) -> Path:
    """A site of two authors, Jane Doe (the 2026 sample) and John Roe (the 2019 sample), their
    caches written as a fetch would; ``big`` adds ``big_record`` to Jane's."""
    (root / "content" / "authors").mkdir(parents=True)
    shown = f"authors_shown: {authors_shown}\n" if authors_shown else ""
    (root / "site.yaml").write_text(f"title: Samples\nbase_url: {BASE_URL}\n{shown}", "utf-8")
    for slug, name in (("jane-doe", "Jane Doe"), ("john-roe", "John Roe")):
        (root / "content" / "authors" / f"{slug}.yaml").write_text(textwrap.dedent(f"""\
            name: {name}
            sources:
              - arxiv: {{query: 'au:"{name}"'}}
            """), "utf-8")
    config = load_site(root)
    for a, sample in zip(config.authors, (SAMPLE_2026, SAMPLE_2019)):
        records = list(parse_page(sample.read_bytes()).records)
        if big and a.slug == "jane-doe":
            records.append(big_record())
        source = a.sources[0]
        path = cache.cache_file(config.cache_path, a.slug, source)
        assert path is not None
        cache.write_entry(path, cache.CacheEntry(cache.source_description(source), "2026-01-01T00:00:00Z",
                                                 tuple(records)))
    return root


def build_sample(tmp: Path, **kwargs: object) -> Path:
    root = sample_site(tmp / "site", **kwargs)  # type: ignore[arg-type]
    return build(root, base_url=BASE_URL, search=False).out_dir


class _Records(HTMLParser):
    """The text and links of each ``<li class="record...">`` of a page, by its arXiv id."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.records: list[dict] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "li" and "record" in (a.get("class") or "").split():
            self.records.append({"text": [], "links": []})
            self._depth = 1
        elif self._depth and tag == "li":
            self._depth += 1
        if self._depth and tag == "a":
            self.records[-1]["links"].append(a)

    def handle_endtag(self, tag: str) -> None:
        if self._depth and tag == "li":
            self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._depth:
            self.records[-1]["text"].append(data)


def records_of(page: str) -> dict[str, dict]:
    p = _Records()
    p.feed(page)
    out = {}
    for r in p.records:
        text = " ".join("".join(r["text"]).split())
        m = re.search(r"arXiv:(\S+?)(?:v\d+)?\s", text + " ") or re.search(r"abs/(\S+)$", r["links"][-1]["href"])
        out[m.group(1) if m else text[:40]] = {"text": text, "links": r["links"]}
    return out


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample(tmp_path_factory.mktemp("samples"))


# --- acceptance 2: affiliations, versions, class terms, comment links on the author page ----------

def test_author_page_shows_affiliations_versions_class_terms_and_comment_links(samples: Path) -> None:
    john = records_of((samples / routes.author("john-roe").path).read_text("utf-8"))
    jane = records_of((samples / routes.author("jane-doe").path).read_text("utf-8"))
    # Affiliations: physics/0507092 has two authors sharing one (visible text, numbered once).
    [aff] = {p.affiliations for p in next(r for r in parse_page(SAMPLE_2019.read_bytes()).records
                                          if r.arxiv_id == "physics/0507092").authors}
    assert aff == ("Bologna University and INFN",)
    text = john["physics/0507092"]["text"].replace("\u202f", " ")
    assert "G. Giacomelli1, R. Giacomelli1 1 Bologna University and INFN" in text
    # Versions: shown where there is more than one, the first's date and this version's (issue 30:
    # in the details, so the meta line says one year).
    assert re.search(r"Versionsv1 \d{4}-\d\d-\d\d, v3 2022-07-06", jane["2204.08348"]["text"])
    assert re.search(r"Versionsv1 \d{4}-\d\d-\d\d, v2 2025-05-24", jane["2403.16981"]["text"])
    assert "Versions" not in jane["2202.12139"]["text"]                # v1: its date only
    # Class terms, as such.
    assert "ClassesMSC: 03B70, 68Q99; ACM: F.4.1, F.4.m, K.2" in john["1802.03292"]["text"]   # <dt><dd>
    # Comment links: safe, nofollow, the sentence's punctuation left out of the URL.
    links = [a for a in john["0808.0631"]["links"] if a.get("rel") == "nofollow noopener"]
    assert [a["href"] for a in links] == ["http://dx.doi.org/10.1214/07-STS246B", "http://www.imstat.org/sts/",
                                          "http://www.imstat.org"]
    assert "(http://www.imstat.org/sts/)" in john["0808.0631"]["text"]


def test_subject_page_entries_are_brief(samples: Path) -> None:
    # The brief entries of a subject page show the (bounded) byline, no affiliation list.
    page = (samples / routes.subject("physics.soc-ph").path).read_text("utf-8")
    assert "record-affiliations" not in page and 'class="aff"' not in page
    assert re.search(r'<p class="record-authors"><bdi>G. Giacomelli</bdi>, '
                     r'<bdi>R. Giacomelli</bdi></p>', page)


# --- item 9: the chips count what the filter shows --------------------------------------------

def test_author_chips_count_every_subject_of_the_records(samples: Path) -> None:
    page = (samples / routes.author("jane-doe").path).read_text("utf-8")
    chips = dict(re.findall(r'data-subject="([^"]+)"[^>]*>[^<]*<span class="n">(\d+)</span>', page))
    subjects = re.findall(r'<li class="record" data-subjects="([^"]*)"', page)
    expected = {}
    for codes in subjects:
        for code in codes.split():
            expected[code] = expected.get(code, 0) + 1
    assert {k: int(v) for k, v in chips.items()} == expected
    assert expected["cs.LG"] == 2 and expected["cs.HC"] == 1     # cross-lists only: chips all the same


# --- acceptance 7 / item 12: a 2,501-author record ----------------------------------------------

def test_large_collaboration_is_bounded_on_pages_and_kept_in_cache_and_exports(tmp_path: Path) -> None:
    base = build_sample(tmp_path / "a")
    big = build_sample(tmp_path / "b", big=True)
    author, subject = routes.author("jane-doe").path, routes.subject("cs.SE").path
    for rel in (author, subject):
        added = (big / rel).stat().st_size - (base / rel).stat().st_size
        print(f"{rel}: +{added} bytes for a 2,501-author record")
        assert 0 < added <= 5 * 1024, (rel, added)
        text = records_of((big / rel).read_text("utf-8"))["2501.01234"]["text"]
        assert "Member0001 Collab" in text and "Member0010 Collab" in text and "Member0011 Collab" not in text
        assert re.search(r"Member0010 Collab(10)?, … Jane Doe(11)? \(1,204th of 2,501\) and 2,490 more", text), text
    more = [a for a in records_of((big / author).read_text("utf-8"))["2501.01234"]["links"]
            if a.get("class") == "more"]
    assert [a["href"] for a in more] == ["https://arxiv.org/abs/2501.01234"]
    # Every name kept: the cache, the CSL-JSON and BibTeX exports.
    config = load_site(tmp_path / "b" / "site")
    jane = config.authors[0]
    cached = json.loads(cache.cache_file(config.cache_path, "jane-doe", jane.sources[0]).read_text("utf-8"))
    [rec] = [r for r in cached["records"] if r["arxiv_id"] == "2501.01234"]
    assert len(rec["authors"]) == BIG_TOTAL and rec["authors"][BIG_AT - 1]["name"] == "Jane Doe"
    csl = json.loads((big / routes.author_csl("jane-doe").path).read_text("utf-8"))
    [item] = [i for i in csl if "2501.01234" in json.dumps(i)]
    assert len(item["author"]) == BIG_TOTAL
    bib = (big / routes.author_bibtex("jane-doe").path).read_text("utf-8")
    start = bib.rfind("@", 0, bib.index("Member0001"))
    entry = bib[start:bib.index("\n}", start)]
    assert "2501.01234" in entry
    assert entry.count(" and ") == BIG_TOTAL - 1 and "Member2501" in entry


def test_authors_shown_is_a_site_setting(tmp_path: Path) -> None:
    out = build_sample(tmp_path, big=True, authors_shown=3)
    text = records_of((out / routes.author("jane-doe").path).read_text("utf-8"))["2501.01234"]["text"]
    assert "Member0003 Collab" in text and "Member0004 Collab" not in text and "and 2,497 more" in text
    # A record of exactly the bound's size shows everyone and no "more".
    five = records_of((out / routes.author("jane-doe").path).read_text("utf-8"))["2302.03287"]["text"]
    assert "and 2 more" in five


def _entry(n: int) -> str:
    names = "".join(f"<author><name>Person {i}</name><arxiv:affiliation>Lab {i}</arxiv:affiliation></author>"
                    for i in range(1, n + 1))
    return ('<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" '
            'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">'
            "<opensearch:totalResults>1</opensearch:totalResults><opensearch:startIndex>0</opensearch:startIndex>"
            "<opensearch:itemsPerPage>1</opensearch:itemsPerPage><entry><id>http://arxiv.org/abs/2501.01234v1</id>"
            "<updated>2025-01-03T10:00:00Z</updated><published>2025-01-03T10:00:00Z</published>"
            f"<title>Big</title><summary>S</summary>{names}"
            '<arxiv:primary_category term="hep-ex"/><category term="hep-ex"/></entry></feed>')


@pytest.mark.parametrize("n", [BIG_TOTAL, 5154])
def test_parser_keeps_every_author_of_the_largest_real_lists(n: int) -> None:
    [r] = parse_page(_entry(n).encode()).records
    assert len(r.authors) == n and r.authors[-1] == Person(f"Person {n}", (f"Lab {n}",))
    assert ET_AL not in [p.name for p in r.authors]


def test_parser_bound_is_above_real_lists_and_says_et_al_past_it() -> None:
    assert MAX_AUTHORS == 10_000
    [r] = parse_page(_entry(MAX_AUTHORS + 3).encode()).records
    assert len(r.authors) == MAX_AUTHORS + 1 and r.authors[-1].name == ET_AL


# --- the pure helpers, hostile inputs included ----------------------------------------------------

@pytest.mark.parametrize("n, text", [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"),
                                     (13, "13th"), (21, "21st"), (102, "102nd"), (111, "111th"), (1204, "1,204th")])
def test_ordinal(n: int, text: str) -> None:
    assert byline.ordinal(n) == text


def test_shown_authors_bound_profiled_and_affiliation_numbers() -> None:
    people = [Person(f"P{i}", ("Same lab",) if i % 2 else ("Lab A", "Same lab")) for i in range(30)]
    people[25] = Person("Jane  DOE", ("Elsewhere",))
    shown, affs = byline.shown_authors(people, 3, {"jane doe": "jane-doe"})
    assert [s.index for s in shown] == [0, 1, 2, 25]
    assert affs == ("Lab A", "Same lab", "Elsewhere")
    assert [s.marks for s in shown] == ["1,2", "2", "1,2", "3"]
    assert [s.gap for s in shown] == [False, False, False, True] and shown[3].position == "26th of 30"
    assert byline.shown_authors(people, 3, {}, affiliations=False)[1] == ()
    assert [s.index for s in byline.shown_authors(people[:3], 3, {"p0": "x"})[0]] == [0, 1, 2]
    assert byline.shown_names([], 10, {}) == []


def test_class_terms_group_msc_acm_and_keep_others_whole() -> None:
    assert byline.class_terms(("03B70, 68Q99", "F.4.1; F.4.m; K.2")) == (
        ("MSC", ("03B70", "68Q99")), ("ACM", ("F.4.1", "F.4.m", "K.2")))
    assert byline.class_terms(("81P45", "68-XX", "I.2.6", "Quantum <b>stuff</b>", "  ")) == (
        ("MSC", ("81P45", "68-XX")), ("ACM", ("I.2.6",)), ("Other", ("Quantum <b>stuff</b>",)))


@pytest.mark.parametrize("comment, links", [
    ("See http://x.org/a.", ["http://x.org/a"]),
    ("(code at https://github.com/a/b), more", ["https://github.com/a/b"]),
    ("https://en.wikipedia.org/wiki/Foo_(bar) works", ["https://en.wikipedia.org/wiki/Foo_(bar)"]),
    ("javascript:alert(1) and JAVASCRIPT://x", []),
    ('http://a.org/"onmouseover="alert(1) x', ["http://a.org/"]),
    ("<script>http://a.org/<script></script>", ["http://a.org/"]),
    ("ftp://a.org/ data:text/html,x http:// https://", []),
    ("http://[::1 broken", []),
    ("", []),
])
def test_comment_parts_link_only_safe_http_urls(comment: str, links: list[str]) -> None:
    parts = byline.comment_parts(comment)
    assert "".join(text for text, _ in parts) == comment        # nothing lost, nothing added
    assert [href for _, href in parts if href] == links
    assert all(text == href for text, href in parts if href)


def test_hostile_comment_is_escaped_on_the_page(tmp_path: Path) -> None:
    root = sample_site(tmp_path / "site")
    config = load_site(root)
    jane = config.authors[0]
    path = cache.cache_file(config.cache_path, "jane-doe", jane.sources[0])
    rec = Record(key="arxiv:2501.00001", title="T", year=2025, arxiv_id="2501.00001", version=2,
                 updated="2025-02-01T00:00:00Z", published="2025-01-01T00:00:00Z",
                 comment='<img src=x onerror=alert(1)> http://a.org/"><script>x</script> javascript:alert(1)',
                 other_terms=("<b>68Q</b>",), authors=(Person("<i>Eve</i>", ("<script>Lab</script>",)),))
    cache.write_entry(path, cache.CacheEntry(cache.source_description(jane.sources[0]), "2026-01-01T00:00:00Z",
                                             (rec,)))
    page = (build(root, base_url=BASE_URL, search=False).out_dir / routes.author("jane-doe").path).read_text("utf-8")
    assert "<img src=x" not in page and "<script>x" not in page and "<script>Lab" not in page
    assert "<b>68Q" not in page and "<i>Eve" not in page
    assert '<a href="http://a.org/" rel="nofollow noopener">http://a.org/</a>' in page
    assert 'href="javascript' not in page
