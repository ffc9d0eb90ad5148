"""``dblp:`` sources over real HTTP on 127.0.0.1: a person record written from the structure DBLP
documents (tests/fixtures/other-samples/dblp-person-12-3456.xml), read to its end, 429/5xx
recovery, unknown elements named, and every bad answer leaving the cache byte-identical."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from fakearxiv import Reply, Script
from fetchkit import cache_path, hazard
from scholarkit import OTHER, assert_bad_answers_keep_cache, base, fetch_one, one_source_site

from generator.store import cache
from generator.sources.dblp import parse_person

PERSON = (OTHER / "dblp-person-12-3456.xml").read_bytes()
PID = "12/3456"
XML = "application/xml; charset=utf-8"


def ok(body: bytes = PERSON) -> Reply:
    return Reply(body, content_type=XML)


def test_the_person_record_becomes_records(arxiv_server, site) -> None:
    s = arxiv_server(Script(ok()))
    config = one_source_site(site, s, f"dblp: {{pid: '{PID}'}}")
    result = fetch_one(config, {"DBLP_URL": base(s)})
    assert (result.error, result.requests, result.new, result.records) == (None, 1, 5, 5)
    assert [h.path for h in s.hits] == ["/pid/12/3456.xml"]
    entry = cache.read_entry(cache_path(config))
    assert entry.source == {"type": "dblp", "pid": PID}
    by_key = {dict(r.source_ids)["dblp"]: r for r in entry.records}
    pvldb = by_key["journals/pvldb/DoeS25"]
    assert (pvldb.title, pvldb.venue, pvldb.doi, pvldb.arxiv_id, pvldb.year, pvldb.url) == (
        "Learned Indexes for Skewed Workloads", "Proc. VLDB Endow.", "10.14778/3718057.3718060", None, 2025, None)
    assert [p.name for p in pvldb.authors] == ["Jane Doe", "John Smith"]       # homonym number dropped
    # the CoRR copy: its arXiv id from the ee links (DataCite DOI and abs link), no venue, no DOI
    corr = by_key["journals/corr/abs-2401-01234"]
    assert (corr.key, corr.arxiv_id, corr.doi, corr.venue, corr.origins) == (
        "arxiv:2401.01234", "2401.01234", None, None, ("DBLP",))
    sigmod = by_key["conf/sigmod/DoeLS24"]
    assert (sigmod.title, sigmod.venue) == ("Query Plans for H2O Sensor Streams", "SIGMOD Conference 2024")
    assert by_key["journals/corr/abs-2312-09876"].title == "On x2-Sketches"     # an <informal> element
    thesis = by_key["phd/Doe20"]
    assert (thesis.venue, thesis.url, thesis.key[:6]) == ("Example University", "https://dblp.org/rec/phd/Doe20",
                                                          "title:")


def test_a_cut_record_is_retried_until_every_announced_publication_is_read(arxiv_server, site) -> None:
    """One document, no pages: 'to the end' means the n publications the root announces."""
    cut = PERSON.split(b"<r><inproceedings")[0] + b"</dblpperson>\n"
    s = arxiv_server(Script(ok(cut), ok()))
    config = one_source_site(site, s, f"dblp: '{PID}'")        # the shorthand: a lone pid
    result = fetch_one(config, {"DBLP_URL": base(s)})
    assert (result.error, result.requests, result.records) == (None, 2, 5)


@pytest.mark.parametrize("first", [Reply(b"Too many requests", 429, {"Retry-After": "1"}, content_type="text/plain"),
                                   Reply(b"", 500)])
def test_429_with_retry_after_and_5xx_are_retried(arxiv_server, site, first: Reply) -> None:
    s = arxiv_server(Script(first, ok()))
    config = one_source_site(site, s, f"dblp: {{pid: '{PID}'}}")
    result = fetch_one(config, {"DBLP_URL": base(s)})
    assert (result.error, result.requests, result.records) == (None, 2, 5)
    if first.status == 429:
        assert s.gaps()[0] >= 0.95


def test_bad_answers_leave_the_cache_byte_identical(arxiv_server, site) -> None:
    s = arxiv_server(Script(ok()))
    config = one_source_site(site, s, f"dblp: {{pid: '{PID}'}}")
    env = {"DBLP_URL": base(s)}
    assert fetch_one(config, env).records == 5
    empty = b'<?xml version="1.0" encoding="US-ASCII"?>\n<dblpperson name="Jane Doe" pid="12/3456" n="0">' \
            b'<person key="homepages/12/3456"><author pid="12/3456">Jane Doe</author></person></dblpperson>'
    assert_bad_answers_keep_cache(s, config, env, [
        (ok(PERSON[:-200]), "malformed XML"),
        (ok(PERSON.replace(b"</title>", b"</titel>", 1)), "malformed XML"),
        (ok(hazard("quadratic-blowup.xml")[0]), "DOCTYPE or ENTITY"),
        (ok(PERSON.replace(b'pid="12/3456" n=', b'pid="98/7654" n=')), "another person's record"),
        (ok(b"<dblp><article/></dblp>"), "not a DBLP person record"),
        (ok(PERSON.replace(b"Jane Doe 0001", "J\u00e4ne".encode("latin-1"), 1)), "not valid UTF-8"),
        (ok(empty), "lists no publications but 5 records are cached"),
        (Reply(b"", 404), "HTTP 404"),
    ])


def test_unknown_elements_are_named_in_a_warning(arxiv_server, site, caplog) -> None:
    body = (PERSON.replace(b"<pages>1234-1247</pages>", b"<pages>1234-1247</pages><award>best paper</award>")
            .replace(b"<title>Indexing", b"<title><math>x</math> Indexing")
            .replace(b"<coauthors", b"<r><software key='sw/x'><title>X.</title></software></r><coauthors", 1))
    page = parse_person(body.replace(b'n="5"', b'n="6"'), PID)
    assert page.warnings == ("unknown element <award> in <article> ignored (1 time)",
                             "unknown element <math> in <title> ignored (1 time)",
                             "unknown element <software> in <r> ignored (1 time)")
    s = arxiv_server(Script(ok(body.replace(b'n="5"', b'n="6"'))))
    config = one_source_site(site, s, f"dblp: {{pid: '{PID}'}}")
    with caplog.at_level(logging.WARNING, logger="generator"):
        assert fetch_one(config, {"DBLP_URL": base(s)}).error is None
    assert any("unknown element <award> in <article>" in r.getMessage() for r in caplog.records)


def test_the_readme_example_of_the_three_kinds_loads(tmp_path) -> None:
    """The README's example is a valid author file: one source of each new kind."""
    from fetchkit import write_site

    from generator.config import load_site
    from generator.config.sources import kind_of

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    block = readme.split("### ORCID, DBLP and OpenAlex", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    config = load_site(write_site(tmp_path / "site", {"jane-doe": "name: Jane Doe\n" + block}))
    assert [kind_of(s).description(s) for s in config.authors[0].sources] == [
        {"type": "orcid", "id": "0000-0002-1825-0097"}, {"type": "dblp", "pid": "12/3456"},
        {"type": "openalex", "author": "A5023888391"}]
