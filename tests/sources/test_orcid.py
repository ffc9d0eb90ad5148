"""``orcid:`` sources over real HTTP on 127.0.0.1: the recorded works summary, ORCID's one-document
answer read to its end, 429/5xx recovery, and every bad answer leaving the cache byte-identical."""

from __future__ import annotations

import json

import pytest
from fakearxiv import Reply, Script
from fetchkit import cache_path, write_site
from scholarkit import OTHER, assert_bad_answers_keep_cache, base, fetch_one, one_source_site

from generator.store import cache
from generator.config import load_site
from generator.core.errors import SiteError
from generator.sources.orcid import parse_works

SAMPLE = (OTHER / "orcid-works.json").read_bytes()
ID = "0000-0002-9341-7985"          # the iD of the recorded answer (its check digit is right)
JSON = "application/json;charset=UTF-8"


def ok(body: bytes = SAMPLE) -> Reply:
    return Reply(body, content_type=JSON)


def test_the_recorded_works_become_records_with_their_ids(arxiv_server, site) -> None:
    s = arxiv_server(Script(ok()))
    config = one_source_site(site, s, f"orcid: {{id: {ID}}}")
    result = fetch_one(config, {"ORCID_API_URL": base(s)})
    assert (result.error, result.requests, result.new, result.records) == (None, 1, 8, 8)
    (hit,) = s.hits
    assert hit.path == f"/v3.0/{ID}/works" and hit.headers["accept"] == "application/json"
    entry = cache.read_entry(cache_path(config))
    assert entry.source == {"type": "orcid", "id": ID}
    by_code = {dict(r.source_ids)["orcid"].split("/")[1]: r for r in entry.records}
    peerj = by_code["15536015"]
    assert (peerj.key, peerj.doi, peerj.year, peerj.source, peerj.origins, peerj.url) == (
        "doi:10.3233/isu-130714", "10.3233/ISU-130714", 2013, "ORCID", ("ORCID",), None)
    assert by_code["5011717"].published == "2009-01-21T00:00:00Z"
    # a Scopus-only work has no DOI: keyed by title and year, linked to its (validated) URL
    scopus = by_code["15536017"]
    assert scopus.key.startswith("title:") and scopus.url.startswith("http://www.scopus.com/")


def test_each_work_names_its_person_and_links_the_orcid_record(arxiv_server, site) -> None:
    """The source id is '<iD>/<put-code>' (a put-code alone names no person); ORCID has no public
    page per work, so the link is the person's record, where the work is listed."""
    s = arxiv_server(Script(ok()))
    config = one_source_site(site, s, f"orcid: {{id: {ID}}}")
    fetch_one(config, {"ORCID_API_URL": base(s)})
    records = cache.read_entry(cache_path(config)).records
    assert len({r.source_ids for r in records}) == 8
    for r in records:
        (scheme, value), = r.source_ids
        assert scheme == "orcid" and value.startswith(f"{ID}/") and value.split("/")[1].isdigit()
        assert ("ORCID", f"https://orcid.org/{ID}") in r.source_links


def test_a_put_code_that_is_not_a_whole_number_makes_no_source_id() -> None:
    groups = [{"work-summary": [{"put-code": code, "title": {"title": {"value": f"Work {i}"}}}]}
              for i, code in enumerate([True, -3, "12", 1.5, None, 42])]
    records, _ = parse_works(json.dumps({"path": f"/{ID}/works", "group": groups}).encode(), ID)
    assert [r.source_ids for r in records] == [(), (), (), (), (), (("orcid", f"{ID}/42"),)]


def test_one_answer_holds_every_work_read_to_its_end(arxiv_server, site) -> None:
    """ORCID does not page the works summary: all 300 groups of one answer are read, in one request."""
    doc = json.loads(SAMPLE)
    template = doc["group"][1]
    groups = []
    for i in range(300):
        g = json.loads(json.dumps(template))
        g["work-summary"][0]["put-code"] = 9000 + i
        g["work-summary"][0]["title"]["title"]["value"] = f"Work number {i}"
        g["external-ids"]["external-id"][0]["external-id-value"] = f"10.1234/w{i}"
        groups.append(g)
    s = arxiv_server(Script(ok(json.dumps({"group": groups, "path": f"/{ID}/works"}).encode())))
    config = one_source_site(site, s, f"orcid: {ID}")          # the shorthand: a lone iD
    result = fetch_one(config, {"ORCID_API_URL": base(s)})
    assert (result.error, result.requests, result.records) == (None, 1, 300)


@pytest.mark.parametrize("first", [Reply(b"", 429, {"Retry-After": "1"}), Reply(b"oops", 503),
                                   Reply(b"<html>Bad gateway</html>", 502, content_type="text/html")])
def test_429_with_retry_after_and_5xx_are_retried(arxiv_server, site, first: Reply) -> None:
    s = arxiv_server(Script(first, ok()))
    config = one_source_site(site, s, f"orcid: {{id: {ID}}}")
    result = fetch_one(config, {"ORCID_API_URL": base(s)})
    assert (result.error, result.requests, result.records) == (None, 2, 8)
    if first.status == 429:
        assert s.gaps()[0] >= 0.95        # Retry-After: 1 honoured


def test_bad_answers_leave_the_cache_byte_identical(arxiv_server, site) -> None:
    s = arxiv_server(Script(ok()))
    config = one_source_site(site, s, f"orcid: {{id: {ID}}}")
    env = {"ORCID_API_URL": base(s)}
    assert fetch_one(config, env).records == 8
    other = SAMPLE.replace(f"/{ID}/".encode(), b"/0000-0002-1825-0097/")
    assert_bad_answers_keep_cache(s, config, env, [
        (ok(SAMPLE[:-40]), "malformed JSON"),
        (ok(b'{"group": [], "path": NaN}'), "malformed JSON"),
        (ok(b"\xff\xfe{}"), "not valid UTF-8"),
        (ok(b"[" * 5000 + b"]" * 5000), "nested more than"),
        (ok(b'{"works": []}'), "no 'group' list"),
        (Reply(b"<!DOCTYPE html><html><title>Maintenance</title></html>", content_type="text/html"),
         "HTML page"),
        (ok(other), "another person's record"),
        (ok(json.dumps({"group": [], "path": f"/{ID}/works"}).encode()), "no works but 8 records are cached"),
        (Reply(b"", 404), "HTTP 404"),
    ])


def test_a_wrong_check_digit_is_named_with_file_line_and_key(tmp_path) -> None:
    author = "name: Jane Doe\nsources:\n  - orcid: {id: 0000-0002-1825-0098}\n"
    root = write_site(tmp_path / "site", {"jane-doe": author})
    with pytest.raises(SiteError) as err:
        load_site(root)
    (problem,) = err.value.problems
    assert (problem.path, problem.line) == ("content/authors/jane-doe.yaml", 3)
    assert problem.message.startswith("'sources[0].orcid.id': the ORCID iD 0000-0002-1825-0098 fails its checksum")
    assert "check digit, is 8 but the 15 digits before it give 7" in problem.message


def test_hostile_groups_are_skipped_not_fatal() -> None:
    doc = {"path": f"/{ID}/works", "group": [
        None, {"work-summary": []}, {"work-summary": [{"title": {"title": {"value": 7}}}]},
        {"work-summary": [{"put-code": 1, "title": {"title": {"value": "A\u202e title"}},
                           "url": {"value": "javascript:alert(1)"},
                           "publication-date": {"year": {"value": "20x4"}}}],
         "external-ids": {"external-id": [{"external-id-type": "arxiv", "external-id-value": "arXiv:2401.01234",
                                            "external-id-relationship": "version-of"},
                                           {"external-id-type": "doi", "external-id-value": "10.1000/journal",
                                            "external-id-relationship": "part-of"}]}}]}
    records, warnings = parse_works(json.dumps(doc).encode(), ID)
    (rec,) = records
    assert (rec.title, rec.arxiv_id, rec.doi, rec.url, rec.year) == ("A title", "2401.01234", None, None, None)
    assert len(warnings) == 3


def test_ids_are_normalised_or_refused_with_file_line_and_key(tmp_path) -> None:
    ok_author = ("name: Jane Doe\nsources:\n  - orcid: https://orcid.org/0000-0002-1825-0097\n"
                 "  - dblp: https://dblp.org/pid/95/7448-1.html\n  - openalex: https://openalex.org/a5023888391\n")
    config = load_site(write_site(tmp_path / "ok", {"jane-doe": ok_author}))
    assert [s.line for s in config.authors[0].sources] == [3, 4, 5]
    assert [(getattr(s, "id", None) or getattr(s, "pid", None) or s.author) for s in config.authors[0].sources] == [
        "0000-0002-1825-0097", "95/7448-1", "A5023888391"]
    bad = ("name: Jane Doe\nsources:\n  - dblp: {pid: '../../etc'}\n  - openalex: {author: W123}\n"
           "  - orcid: 0000-0002-1825-0098\n")
    with pytest.raises(SiteError) as err:
        load_site(write_site(tmp_path / "bad", {"jane-doe": bad}))
    assert [str(p) for p in err.value.problems] == [
        "content/authors/jane-doe.yaml:3: 'sources[0].dblp.pid' must be a DBLP person id such as 12/3456, "
        "found '../../etc'",
        "content/authors/jane-doe.yaml:4: 'sources[1].openalex.author' must be an OpenAlex author id such as "
        "A5023888391, found 'W123'",
        "content/authors/jane-doe.yaml:5: 'sources[2].orcid.id': the ORCID iD 0000-0002-1825-0098 fails its "
        "checksum (ISO 7064 MOD 11-2): its last character, the check digit, is 8 but the 15 digits before it "
        "give 7; one of the digits is mistyped: copy the iD from your ORCID record"]


def test_a_bad_endpoint_variable_is_refused_before_any_request(arxiv_server, site) -> None:
    s = arxiv_server(Script(ok()))
    config = one_source_site(site, s, f"orcid: {ID}")
    with pytest.raises(SiteError, match="environment variable ORCID_API_URL must be an http"):
        fetch_one(config, {"ORCID_API_URL": "file:///etc/passwd"})
    assert s.hits == []
