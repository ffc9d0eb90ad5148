"""Parsing and normalisation in generator.sources (arxiv, feed, accept, text): bytes in,
records (or a refusal) out. No network, no clock."""

from __future__ import annotations

import hashlib
import re

import feedparser
import pytest
from atomgen import entry_xml, feed_xml
from fetchkit import FIXTURES, HAZARDS, SAMPLE_2019, SAMPLE_2026, hazard, hazard_names

from generator.sources import accept, arxiv
from generator.sources.accept import decode_xml, parse_xml
from generator.sources.feed import html_to_text, parse_feed
from generator.sources.http import PermanentError, Response, TransientError
from generator.sources.text import clean_text, utc_iso

SHARED = {
    SAMPLE_2026.name: "1b99f82d28cbe28c15f0c579175d54980f24ff98b9fbe7d4db1e342cd5176a54",
    SAMPLE_2019.name: "c5bc403b250ec79b990c161b10665857b19c4c884150f03080917050af6f0fe0",
}


def one(entry: str, **kw: object) -> arxiv.ArxivPage:
    return arxiv.parse_page(feed_xml([entry], total=1, **kw))  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- the two recorded layouts

@pytest.mark.parametrize("path", [SAMPLE_2019, SAMPLE_2026], ids=["legacy-2019", "current-2026"])
def test_samples_are_exact_copies(path) -> None:
    assert hashlib.sha256(path.read_bytes()).hexdigest() == SHARED[path.name]


def test_both_layouts_give_the_same_normalized_fields() -> None:
    old = arxiv.parse_page(SAMPLE_2019.read_bytes())
    new = arxiv.parse_page(SAMPLE_2026.read_bytes())
    assert (old.total, old.entries, len(old.records)) == (120839, 10, 10)
    assert (new.total, new.entries, len(new.records)) == (214881, 15, 15)
    for r in old.records + new.records:
        assert r.key == f"arxiv:{r.arxiv_id}" and r.version and r.source == "arXiv"
        assert r.published and r.published.endswith("Z") and len(r.published) == 20
        assert r.year == int(r.published[:4])
        assert r.title == " ".join(r.title.split()) and r.abstract == " ".join(r.abstract.split())
        assert r.authors and all(p.name for p in r.authors)
        assert r.primary_subject == r.subjects[0]
        assert r.url is None          # links are rebuilt from the id, never stored
    # the same kinds of fields are filled in both layouts
    filled = lambda recs, f: any(getattr(r, f) for r in recs)  # noqa: E731
    for f in ("doi", "journal_ref", "comment", "subjects"):
        assert filled(old.records, f) and filled(new.records, f), f


def test_legacy_layout_details() -> None:
    recs = {r.arxiv_id: r for r in arxiv.parse_page(SAMPLE_2019.read_bytes()).records}
    r = recs["1503.01162"]
    assert r.title.startswith("Report on a Boston University Conference December 7-8, 2012 on 'How Can the History")
    assert r.doi == "10.1007/s11191-014-9716-8"
    assert r.journal_ref == "Science & Education, September 2014, 23(9): 1853-1873"
    assert r.comment == "Conference funded by NSF grant REESE-1205273. 31 pages"
    assert r.subjects == ("physics.ed-ph", "physics.hist-ph", "physics.soc-ph")
    assert [p.name for p in r.authors] == ["Peter Garik", "Yann Benétreau-Dupin"]
    # per-author affiliations survive (feedparser keeps only the last one of the entry)
    g = recs["physics/0507092"]
    assert [(p.name, p.affiliations) for p in g.authors] == [
        ("G. Giacomelli", ("Bologna University and INFN",)), ("R. Giacomelli", ("Bologna University and INFN",))]
    # MSC and ACM terms are kept off the subjects
    k = recs["1802.03292"]
    assert k.subjects == ("cs.LO",) and k.other_terms == ("03B70, 68Q99", "F.4.1; F.4.m; K.2")
    assert recs["quant-ph/0210005"].version == 1 and recs["quant-ph/0210005"].year == 2002


def test_current_layout_details() -> None:
    recs = {r.arxiv_id: r for r in arxiv.parse_page(SAMPLE_2026.read_bytes()).records}
    r = recs["2005.14124"]
    assert r.version == 2 and r.published == "2020-05-28T16:19:50Z" and r.updated == "2020-07-16T08:15:48Z"
    assert r.doi == "10.1145/3395363.3397376" and r.subjects == ("cs.SE", "cs.CR", "cs.LG")
    # aliases map to the canonical code: math.IT -> cs.IT, stat.TH -> math.ST, each once
    assert recs["2403.16981"].subjects == ("math.ST", "cs.IT", "stat.ML")


def test_elementtree_agrees_with_feedparser_on_the_samples() -> None:
    for path in (SAMPLE_2019, SAMPLE_2026):
        d = feedparser.parse(path.read_bytes())
        recs = arxiv.parse_page(path.read_bytes()).records
        assert len(d.entries) == len(recs)
        for e, r in zip(d.entries, recs):
            assert r.title == " ".join(e.title.split())
            assert r.abstract == " ".join(e.summary.split())
            assert [p.name for p in r.authors] == [a["name"] for a in e.authors]
            assert r.doi == e.get("arxiv_doi")
            assert r.journal_ref == (" ".join(e["arxiv_journal_ref"].split()) if "arxiv_journal_ref" in e else None)
            assert r.comment == (" ".join(e["arxiv_comment"].split()) if "arxiv_comment" in e else None)


# ----------------------------------------------------------------------------- every hazard, pure path

# Hazards with a retryable status (5xx) never reach the parser: the client retries them (test_fetch_faults).
@pytest.mark.parametrize("name", [n for n in hazard_names() if hazard(n)[1]["status"] < 500])
def test_hazard_refused_by_parse_page(name: str) -> None:
    body, meta = hazard(name)
    response = Response(url="http://x", status=meta["status"], headers={}, body=body, seconds=0)
    expected = TransientError if meta["retried"] else PermanentError
    with pytest.raises(expected) as info:
        arxiv.accept_page(response, start=0, size=10, cached=1)
    assert meta["message"] in info.value.reason


def test_utf16_quadratic_bomb_is_refused_before_parsing() -> None:
    text = (HAZARDS / "quadratic-blowup.xml").read_text("utf-8").replace("encoding='UTF-8'", "encoding='UTF-16'")
    for body in (text.encode("utf-16"), text.encode("utf-16-le"), text.encode("utf-16-be")):
        with pytest.raises(TransientError, match="UTF-8|control character"):
            decode_xml(body)


# ----------------------------------------------------------------------------- one parse: every check still caught

GOOD = feed_xml([entry_xml("2401.01234")], total=1)
ERROR_FEED = feed_xml([entry_xml("x", raw_id="https://arxiv.org/api/errors#incorrect_id_format_for_abc",
                                 title="Error", summary="incorrect id format for abc")], total=1)
REFUSALS = [  # (what, body, status, error class, words of the message)
    ("HTML page with status 200", b"<!DOCTYPE html><html><title>Oops</title></html>", 200, TransientError, "HTML page"),
    ("'Rate exceeded.' with 200", b"Rate exceeded.", 200, TransientError, "throttled"),
    ("empty body", b"", 200, TransientError, "empty response body"),
    ("root is an entry", hazard("wrong-root.xml")[0], 200, TransientError, "not an atom10 feed"),
    ("RSS 2.0", b"<rss version='2.0'><channel><title>x</title></channel></rss>", 200, TransientError, "not an atom10"),
    ("Atom 0.3", b"<feed version='0.3' xmlns='http://purl.org/atom/ns#'><title>x</title></feed>", 200, TransientError,
     "not an atom10"),
    ("no totalResults", GOOD.replace(b"<opensearch:totalResults>1</opensearch:totalResults>", b""), 200,
     TransientError, "opensearch:totalResults"),
    ("totalResults not an integer", feed_xml([], total_text="many"), 200, TransientError, "opensearch:totalResults"),
    ("error entry with 200", ERROR_FEED, 200, PermanentError, "arXiv reported an error: incorrect id format for abc"),
    ("error entry with 400", ERROR_FEED, 400, PermanentError, "(HTTP 400): incorrect id format for abc"),
    ("HTTP 404 with no feed", b"Not Found", 404, PermanentError, "HTTP 404 (is fetch.arxiv_api"),
    ("Latin-1 bytes", GOOD.replace(b"Jane Doe", "Jané Doe".encode("latin-1")), 200, TransientError, "not valid UTF-8"),
    ("UTF-16 with a BOM", GOOD.decode().replace("UTF-8", "UTF-16").encode("utf-16"), 200, TransientError, "UTF-8"),
    ("declared ISO-8859-1", GOOD.replace(b"encoding='UTF-8'", b"encoding='ISO-8859-1'"), 200, TransientError,
     "declares encoding"),
    ("undefined entity", GOOD.replace(b"A title", b"A&nbsp;title"), 200, TransientError, "malformed XML"),
    ("truncated", GOOD[:-40], 200, TransientError, "malformed XML"),
]


@pytest.mark.parametrize("what, body, status, error, words", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_each_acceptance_check_is_made_on_the_one_parse(what, body, status, error, words) -> None:
    with pytest.raises(error) as info:
        arxiv.parse_page(body, status=status)
    assert words in info.value.reason
    assert ("Rate" not in what) or info.value.throttled


def test_a_utf8_bom_is_fine_and_the_tree_is_elementtree() -> None:
    assert [r.arxiv_id for r in arxiv.parse_page(b"\xef\xbb\xbf" + GOOD).records] == ["2401.01234"]
    assert parse_xml(GOOD).tag == f"{arxiv.ATOM}feed"


HOSTILE = ["billion-laughs.xml", "quadratic-blowup.xml", "external-entity.xml", "external-dtd.xml",
           "parameter-entity.xml"]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_pages_are_refused_before_parsing(name: str) -> None:
    with pytest.raises(PermanentError, match="DOCTYPE or ENTITY.*refused before parsing"):
        arxiv.parse_page(hazard(name)[0])


@pytest.mark.parametrize("name", HOSTILE)
def test_the_parser_refuses_them_too_if_the_text_check_missed_them(name: str, monkeypatch) -> None:
    """Defence in depth: with the text check disabled, defusedxml still refuses every DTD and entity."""
    monkeypatch.setattr(accept, "_DTD", re.compile(r"(?!)"))    # a pattern that never matches
    body = hazard(name)[0]
    assert decode_xml(body)                                      # the first gate is really off
    with pytest.raises(PermanentError, match="DOCTYPE or ENTITY.*refused by the parser"):
        arxiv.parse_page(body)


# ----------------------------------------------------------------------------- normalisation of entries

def test_xss_payloads_are_kept_as_text_and_links_are_never_copied() -> None:
    x = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    page = one(entry_xml("2401.01234", 2, title=f"T {x}", summary=f"S {x}", authors=((f"N {x}", (f"A {x}",)),),
                         comment=f"C {x}", journal_ref=f"J {x}", doi="javascript:alert(1)",
                         categories=("cs.DB", "<script>", "../../etc"),
                         links=("javascript:alert(3)", "//evil.example/x", "data:text/html;base64,PHNjcmlwdD4=")))
    (r,) = page.records
    assert r.title == f"T {x}" and r.abstract == f"S {x}" and r.comment == f"C {x}" and r.journal_ref == f"J {x}"
    assert r.authors[0].name == f"N {x}" and r.authors[0].affiliations == (f"A {x}",)
    assert r.doi is None and r.url is None
    assert r.subjects == ("cs.DB",) and r.other_terms == ("<script>", "../../etc")
    assert r.abs_url == "https://arxiv.org/abs/2401.01234" and r.pdf_url == "https://arxiv.org/pdf/2401.01234"


def test_invalid_ids_are_skipped_with_a_warning() -> None:
    entries = [entry_xml("2401.01234"), entry_xml("x", raw_id="http://arxiv.org/abs/../../etc/passwd"),
               entry_xml("y", raw_id="http://evil.example/abs/2401.01235v1"), entry_xml("z", raw_id="2401.01236v1")]
    page = arxiv.parse_page(feed_xml(entries, total=4))
    assert page.entries == 4 and [r.arxiv_id for r in page.records] == ["2401.01234"]
    assert len(page.warnings) == 3 and all("not an arXiv id" in w for w in page.warnings)


def test_dates_are_utc_and_impossible_dates_are_missing() -> None:
    (r,) = one(entry_xml("2401.01234", published="2024-12-31T23:30:00-05:00", updated="2025-02-30T10:00:00Z")).records
    assert r.published == "2025-01-01T04:30:00Z" and r.year == 2025      # year of the UTC date
    assert r.updated is None
    page = one(entry_xml("2401.01234", published="2025-13-45T25:61:61Z", updated="2024-03-01T00:00:00Z"))
    assert page.records[0].published is None and page.records[0].year == 2024
    assert any("impossible" in w for w in page.warnings)
    assert utc_iso("Tue, 10 Jun 2003 04:00:00 GMT") == "2003-06-10T04:00:00Z"
    assert utc_iso("Mon, 30 Feb 2025 04:00:00 GMT") is None
    assert utc_iso("2025-01-01T00:00:00+14:00") == "2024-12-31T10:00:00Z"
    assert utc_iso("last Tuesday") is None


def test_absurd_sizes_are_capped() -> None:
    authors = [f"Author {i}" for i in range(600)]
    (r,) = one(entry_xml("2401.01234", title="T" * 200_000, summary="S " * 50_000, authors=authors)).records
    assert len(r.title) == 2_000 and r.title.endswith("…")
    assert len(r.abstract) <= 20_000
    # Authors are kept up to 10,000 (issue 15; tests/render/test_record_display.py checks the bound itself).
    assert len(r.authors) == 600 and r.authors[-1].name == "Author 599" and r.authors[0].name == "Author 0"


def test_missing_title_and_title_zero() -> None:
    (r,) = one(entry_xml("2104.12255", title="0")).records
    assert r.title == "0"
    page = one(entry_xml("2104.12255", title=""))
    assert page.records[0].title == "arXiv:2104.12255" and page.warnings


def test_text_cleaning() -> None:
    assert clean_text("a\u202eb\u200bc  \n  d\x85e") == "a b\u200bc d e"
    assert clean_text("  two\n  lines ") == "two lines"
    assert clean_text("x" * 10, 5) == "xxxx…"


def test_duplicate_entries_keep_the_first_and_versions_are_split() -> None:
    page = arxiv.parse_page(feed_xml([entry_xml("2401.01234", 3), entry_xml("2401.01234", 2)], total=2))
    assert [(r.key, r.version) for r in page.records] == [("arxiv:2401.01234", 3), ("arxiv:2401.01234", 2)]


def test_query_url_sorts_by_last_update() -> None:
    url = arxiv.query_url("http://127.0.0.1:1/api/query", 'au:"Bin Cui"', 100, 50)
    assert url == ("http://127.0.0.1:1/api/query?search_query=au%3A%22Bin+Cui%22&start=100&max_results=50"
                   "&sortBy=lastUpdatedDate&sortOrder=descending")


def test_endpoint_from_environment_or_site_yaml() -> None:
    from generator.config import FetchPolicy
    from generator.core.errors import SiteError

    p = FetchPolicy()
    assert arxiv.endpoint_url(p, {}) == "https://export.arxiv.org/api/query"
    assert arxiv.endpoint_url(p, {"ARXIV_API_URL": "http://127.0.0.1:5/api/query"}) == "http://127.0.0.1:5/api/query"
    assert arxiv.endpoint_url(FetchPolicy(arxiv_api="http://export.arxiv.org/api/query"), {}).startswith("https://")
    with pytest.raises(SiteError, match="ARXIV_API_URL"):
        arxiv.endpoint_url(p, {"ARXIV_API_URL": "file:///etc/passwd"})


# ----------------------------------------------------------------------------- generic feeds

RSS = (FIXTURES / "feeds" / "arxiv-listing.rss").read_bytes()        # arXiv's RSS listing layout
ATOM = (FIXTURES / "feeds" / "publications.atom").read_bytes()     # a publication list, hostile bits included


def test_rss_listing_recognises_arxiv_ids_and_dois() -> None:
    page = parse_feed(RSS, label="arXiv cs.DB")
    (r,) = page.records
    assert (r.key, r.arxiv_id, r.version, r.doi) == ("arxiv:2401.01234", "2401.01234", 2, "10.1145/1234.5678")
    assert r.source == "arXiv cs.DB" and r.url is None
    assert [p.name for p in r.authors] == ["Jane Doe", "Co Author"]
    assert r.subjects == ("cs.DB", "eess.SY") and r.published == "2024-01-15T05:00:00Z" and r.year == 2024
    assert r.abstract == "We study things."


def test_atom_feed_links_only_if_safe_and_html_reduced_to_text() -> None:
    recs = parse_feed(ATOM, label="DBLP").records
    a, b, c = recs
    assert a.title == "A journal paper" and a.doi == "10.1000/xyz123" and a.key == "doi:10.1000/xyz123"
    assert a.url == "https://doi.org/10.1000/xyz123" and [p.name for p in a.authors] == ["Doe, Jane"]
    assert b.url is None and b.key.startswith("title:")
    assert c.url == "https://example.org/paper.html" and c.published is None and c.year is None


def test_feed_hazards_are_refused_too() -> None:
    for name in ("billion-laughs.xml", "invalid-utf8.xml", "rate-exceeded.txt", "truncated.xml"):
        body, _ = hazard(name)
        with pytest.raises((TransientError, PermanentError)):
            parse_feed(body, label="x")


def test_html_to_text_drops_scripts() -> None:
    assert html_to_text("<p>a<script>alert(1)</script> <b>b</b></p>") == "a b"
