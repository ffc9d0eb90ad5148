"""Issue 32, point 1 (acceptance 1): every record says how it was matched, and the pages, the
author's CSL-JSON, data.json and ``authorsite review`` say the same. On the demo (Jane Doe: a
record found by the arXiv name search alone, one found by it and confirmed by her DBLP record,
records of DBLP and one typed in) and on a samples site made from the recorded arXiv, ORCID
answers (a name query, an ORCID iD, and an arXiv ids list that confirms one of the query's records)."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

from generator.store import cache
from generator.assemble import matching
from generator.config import load_site
from generator.core.model import Record
from generator.sources.arxiv import parse_page
from generator.sources.orcid import parse_works
from helpers import REPO, build, parse_html, run_cli

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ORCID_ID = "0000-0002-9341-7985"   # the iD of the recorded ORCID answer


def page_matches(html: str) -> dict[str, tuple[str, str, str]]:
    """Each record of an author page (outside "Selected publications") by its anchor: its
    data-match, the mark's words ('' for none) and its "Not mine?" href ('' for none)."""
    doc = parse_html(html)
    out = {}
    for li in doc.find_all("li", "record"):
        title = li.find("h3", "record-title")
        if "id" not in title.attrs:
            continue    # a pinned copy
        marks = li.find_all("p", "record-match")
        links = li.find_all("a", "not-mine")
        out[title.attrs["id"] or ""] = (li.attrs.get("data-match") or "",
                                        " ".join(marks[0].text().split()) if marks else "",
                                        (links[0].attrs.get("href") or "") if links else "")
    return out


def review_matches(root: Path, slug: str) -> dict[str, str]:
    """The "How each record was matched" block of ``authorsite review``: record id -> basis."""
    res = run_cli("-C", root, "review", slug)
    assert res.returncode == 0, res.stderr
    block = res.stdout.split("How each record was matched", 1)[1].split("\n\n", 1)[0]
    out = {}
    for line in block.splitlines()[1:]:
        m = re.match(r"\s+(NAME|CONFIRMED|IDENTIFIER)\s+(\S+)\s", line)
        assert m, line
        out[m.group(2)] = m.group(1).lower()
    return out


def check_agree(root: Path, out: Path, slug: str) -> dict[str, str]:
    """Pages, CSL-JSON, data.json and review give every record of ``slug`` the same reason;
    the reasons by record id."""
    html = (out / "authors" / slug / "index.html").read_text("utf-8")
    on_page = page_matches(html)
    csl = json.loads((out / "authors" / slug / "publications.json").read_text("utf-8"))
    in_csl = {item["id"]: item["custom"] for item in csl}
    assert len(in_csl) == len(on_page) == len(csl)
    reviewed = review_matches(root, slug)
    data = next(a for a in json.loads((out / "data.json").read_text("utf-8"))["authors"] if a["slug"] == slug)
    by_id: dict[str, str] = {}
    for item in csl:
        code = item["custom"]["match"]
        assert item["custom"]["match-reason"] == matching.words(code)
        by_id[item["id"]] = code
    page_codes = sorted(m for m, _, _ in on_page.values())
    assert page_codes == sorted(by_id.values())          # the page and the CSL-JSON: the same reasons
    assert sorted(reviewed.values()) == sorted(matching.basis(c) for c in by_id.values())   # review too
    named = [v for v in on_page.values() if v[0].startswith("name:")]
    assert all(words and "not confirmed by an identifier" in words for _, words, _ in named)
    assert all(not words for code, words, _ in on_page.values() if not code.startswith("name:"))
    counts = {b: sum(matching.basis(c) == b for c in by_id.values()) for b in ("identifier", "confirmed", "name")}
    assert {k: data["matched"][k] for k in counts} == counts
    assert len(data["matched"]["name_only"]) == counts["name"] == len(named)
    return by_id


def test_the_demo_says_how_each_record_was_matched(demo) -> None:  # noqa: ANN001
    by_id = check_agree(demo.root, demo.out, "jane-doe")
    assert by_id["2405.99998"] == "name:arxiv-query"         # the arXiv name search alone
    assert by_id["2401.99999"] == "confirmed:dblp"           # the name search, and her DBLP record
    assert by_id["2312.99999"] == "identifier:dblp"          # her DBLP record only
    assert [c for c in by_id.values() if c == "identifier:typed-in"] == ["identifier:typed-in"]
    html = demo.read("authors/jane-doe/index.html")
    code, words, href = page_matches(html)["r-2405-99998"]
    assert words.startswith("Name match Found by a search for the author’s name") and words.endswith("Not mine?")
    query = parse_qs(urlsplit(href).query)
    assert href.startswith("https://github.com/example/authorsite/issues/new?")
    assert {k: v[0] for k, v in query.items() if k != "title"} == {
        "template": "not-mine.yml", "author": "jane-doe", "record": "2405.99998",
        "page": "https://example.github.io/authorsite/authors/jane-doe/#r-2405-99998"}
    assert "2405.99998" in query["title"][0]
    # the typed-in demo authors: every record there is the author's by identifier
    for slug in ("bin-cui", "bingning-wang"):
        assert set(check_agree(demo.root, demo.out, slug).values()) == {"identifier:typed-in"}
    assert review_matches(demo.root, "jane-doe")["2405.99998"] == "name"


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[Record]]:
    """One author with three sources, each cached from a recorded answer: the arXiv query
    (the two arXiv samples), an ORCID iD (the ORCID sample) and an arXiv ids list naming the
    first arXiv sample record. Built; no repository in site.yaml."""
    root = tmp_path_factory.mktemp("match-samples") / "site"
    (root / "content" / "authors").mkdir(parents=True)
    (root / "site.yaml").write_text("title: Samples\nbase_url: /\n", "utf-8")
    arxiv = [r for p in sorted((FIXTURES / "arxiv-samples").glob("*.xml")) for r in parse_page(p.read_bytes()).records]
    listed = arxiv[0]
    (root / "content" / "authors" / "sam-ple.yaml").write_text(textwrap.dedent(f"""\
        name: Sam Ple
        sources:
          - arxiv: {{query: 'au:"Sam Ple"'}}
          - orcid: {{id: {ORCID_ID}}}
          - arxiv: {{ids: ['{listed.arxiv_id}']}}
        """), "utf-8")
    orcid, _ = parse_works((FIXTURES / "other-samples" / "orcid-works.json").read_bytes(), ORCID_ID)
    config = load_site(root)
    for source, records in zip(config.authors[0].sources, (arxiv, orcid, [listed])):
        path = cache.cache_file(config.cache_path, "sam-ple", source)
        assert path is not None
        cache.write_entry(path, cache.CacheEntry(cache.source_description(source), "2026-01-01T00:00:00Z",
                                                 tuple(records)))
    return root, build(root), arxiv


def test_the_samples_site_says_how_each_record_was_matched(samples: tuple[Path, Path, list[Record]]) -> None:
    root, out, arxiv = samples
    by_id = check_agree(root, out, "sam-ple")
    assert by_id[arxiv[0].arxiv_id or ""] == "confirmed:arxiv-ids"    # found by name, and listed by id
    assert by_id[arxiv[1].arxiv_id or ""] == "name:arxiv-query"
    codes = set(by_id.values())
    assert {"name:arxiv-query", "confirmed:arxiv-ids", "identifier:orcid"} <= codes
    # no repository in site.yaml: the mark, in words, but no "Not mine?" link
    on_page = page_matches((out / "authors" / "sam-ple" / "index.html").read_text("utf-8"))
    named = [v for v in on_page.values() if v[0].startswith("name:")]
    assert named and all(words and not href for _, words, href in named)
    assert "not-mine" not in (out / "authors" / "sam-ple" / "index.html").read_text("utf-8")


def test_include_makes_a_name_match_an_identifier_match(tmp_path: Path) -> None:
    found = Record(key="arxiv:2401.00001", title="A", year=2024, arxiv_id="2401.00001")
    other = Record(key="arxiv:2401.00002", title="B", year=2024, arxiv_id="2401.00002")
    tagged = matching.tagged([found, other], "name:arxiv-query", frozenset({"2401.00001"}))
    assert [r.match for r in tagged] == ["identifier:include", "name:arxiv-query"]


def test_a_merged_record_takes_the_strongest_identifier() -> None:
    def rec(match: str) -> Record:
        return Record(key="arxiv:1", title="T", year=2024, match=match)
    assert matching.merged_match([rec("name:arxiv-query"), rec("identifier:typed-in"),
                                  rec("identifier:orcid")]) == "confirmed:orcid"
    assert matching.merged_match([rec("identifier:feed"), rec("identifier:dblp")]) == "identifier:dblp"
    assert matching.merged_match([rec("name:arxiv-query"), rec("name:arxiv-query")]) == "name:arxiv-query"


def test_the_not_mine_link_fills_fields_the_issue_form_has() -> None:
    """The link names the form a new site gets and only fields that form declares."""
    form_path = REPO / "generator/scaffold/github/ISSUE_TEMPLATE/not-mine.yml"
    form = yaml.safe_load(form_path.read_text("utf-8"))
    declared = {item["id"] for item in form["body"] if "id" in item}
    url = matching.not_mine_url("https://github.com/o/site", "ada", Record(key="arxiv:2401.00001", title="T",
                                year=2024, arxiv_id="2401.00001"), "https://x.org/authors/ada/#r-2401-00001")
    query = parse_qs(urlsplit(url).query)
    assert query["template"] == [form_path.name]
    assert set(query) - {"template", "title"} <= declared and {"author", "record", "page"} <= declared


def test_the_not_mine_link_is_url_encoded() -> None:
    r = Record(key="doi:10.1/a&b c", title="T", year=2024)
    url = matching.not_mine_url("https://github.com/o/site/", "ada", r, "https://x.org/authors/ada/#r-1")
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "github.com", "/o/site/issues/new")
    q = {k: v[0] for k, v in parse_qs(parts.query).items()}
    assert q["record"] == "doi:10.1/a&b c" and q["page"] == "https://x.org/authors/ada/#r-1"
    assert matching.not_mine_url("", "ada", r, "p") == ""
