"""generator.config on YAML snippets: values in, exact messages out (MkDocs' ``expect_error`` style)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.config import ArxivSource, RecordsSource, load_site
from generator.core.errors import SiteError
from generator.core.yamlfile import YFloat, parse_yaml
from helpers import make_project  # tests/ is on sys.path (tests/conftest.py)

AUTHOR_KEYS = ("name, name_native, name_native_lang, affiliation, role, group, member, photo, links, bio, aliases, sources, pinned, extra_links, include, "
               "exclude, filters, separate, template")
SITE_KEYS = ("title, description, base_url, language, theme, output_dir, contact, cname, paginate, citations, venues, papers, "
             "feed_size, "
             "authors_shown, accent, publications, shards, fetch, search, host, deploy, groups, extra, repository, "
             "venue_names")


def expect_error(tmp_path: Path, files: dict[str, str], expected: list[str]) -> SiteError:
    """Load the site and assert the exact problem lines of the one SiteError it raises."""
    root = make_project(tmp_path, files)
    with pytest.raises(SiteError) as info:
        load_site(root)
    assert [str(p) for p in info.value.problems] == expected
    n = len(expected)
    assert str(info.value).splitlines()[0].startswith(f"{n} problem{'s' if n != 1 else ''} in ")
    return info.value


def author(text: str) -> dict[str, str]:
    return {"content/authors/a.yaml": text}


# ----------------------------------------------------------------------------- authors

def test_unknown_key_did_you_mean(tmp_path: Path) -> None:
    expect_error(tmp_path, author("name: A\naffilation: X\n"), [
        "content/authors/a.yaml:2: unknown key 'affilation' (did you mean 'affiliation'?); "
        f"allowed keys: {AUTHOR_KEYS}",
    ])


def test_unknown_key_without_a_close_match(tmp_path: Path) -> None:
    expect_error(tmp_path, author("name: A\nzzz: 1\n"), [
        f"content/authors/a.yaml:2: unknown key 'zzz'; allowed keys: {AUTHOR_KEYS}",
    ])


def test_wrong_type(tmp_path: Path) -> None:
    expect_error(tmp_path, author("name: [a, b]\n"), [
        "content/authors/a.yaml:1: 'name' must be text, found a list",
    ])


def test_yaml_booleans_are_not_text(tmp_path: Path) -> None:
    expect_error(tmp_path, author("name: A\naffiliation: no\n"), [
        "content/authors/a.yaml:2: 'affiliation' must be text, found true/false (false); YAML reads yes, no, on, "
        "off, true and false unquoted as true/false: put the text in quotes",
    ])


def test_missing_name(tmp_path: Path) -> None:
    expect_error(tmp_path, author("affiliation: X\n"), [
        "content/authors/a.yaml:1: missing required key 'name' (text)",
    ])


def test_arxiv_id_read_as_number(tmp_path: Path) -> None:
    expect_error(tmp_path, author("name: A\ninclude: [2104.12250]\n"), [
        "content/authors/a.yaml:2: 'include[0]': 2104.12250 was read by YAML as the number 2104.1225, "
        "not an arXiv id; put it in quotes: '2104.12250'",
    ])


def test_arxiv_id_that_is_not_one(tmp_path: Path) -> None:
    expect_error(tmp_path, author("name: A\nexclude: ['not-an-id']\n"), [
        "content/authors/a.yaml:2: 'exclude[0]' must be an arXiv id such as '2401.01234' or 'hep-th/9901001', "
        "found the text 'not-an-id'",
    ])


def test_duplicate_key(tmp_path: Path) -> None:
    expect_error(tmp_path, author("name: A\nname: B\n"), [
        "content/authors/a.yaml:2: duplicate key 'name' (first written on line 1); keep one of them",
    ])


def test_yaml_syntax_error_has_line_and_column(tmp_path: Path) -> None:
    expect_error(tmp_path, author("name: A\nsources:\n  - records:\n    - title: x\n       year: 2020\n"), [
        "content/authors/a.yaml:5: YAML syntax error, column 12: mapping values are not allowed here "
        "(check indentation and quoting near this line)",
    ])


def test_unknown_category_did_you_mean(tmp_path: Path) -> None:
    expect_error(tmp_path, author("name: A\nfilters:\n  categories: [cs.LGG]\n"), [
        "content/authors/a.yaml:3: 'filters.categories': 'cs.LGG' is not an arXiv category (did you mean 'cs.LG'?)",
    ])


def test_record_problems_name_the_record(tmp_path: Path) -> None:
    expect_error(tmp_path, author(
        "name: A\n"
        "sources:\n"
        "  - records:\n"
        "      - title: T\n"
        "        year: 1850\n"
        "      - title: U\n"
        "        year: 2020\n"
        "        doi: not-a-doi\n"
        "        published: soon\n"
    ), [
        "content/authors/a.yaml:5: 'sources[0].records[0].year' must be from 1900 to 2100, found 1850",
        "content/authors/a.yaml:8: 'sources[0].records[1].doi' must be a DOI such as 10.1145/3299869.3319893, "
        "found 'not-a-doi'",
        "content/authors/a.yaml:9: 'sources[0].records[1].published' must be a date such as 2024-05-31, "
        "found the text 'soon'",
    ])


def test_source_needs_exactly_one_kind(tmp_path: Path) -> None:
    expect_error(tmp_path, author("name: A\nsources:\n  - arxiv: x\n    feed: {url: 'https://e.org/f'}\n"), [
        "content/authors/a.yaml:3: 'sources[0]' must have exactly one of arxiv, feed, records, orcid, dblp, openalex; found arxiv, feed",
    ])


def test_unsafe_slugs(tmp_path: Path) -> None:
    files = {f"content/authors/{n}": "name: X\n" for n in ("Bad Name.yaml", "a_b.yaml")}
    expect_error(tmp_path, files, [
        "content/authors/Bad Name.yaml: file name 'Bad Name.yaml' does not make a safe page address; "
        "use lower-case letters, digits and hyphens, e.g. 'jane-doe.yaml'",
        "content/authors/a_b.yaml: file name 'a_b.yaml' does not make a safe page address; "
        "use lower-case letters, digits and hyphens, e.g. 'jane-doe.yaml'",
    ])


def test_two_authors_one_slug(tmp_path: Path) -> None:
    expect_error(tmp_path, {"content/authors/a.yaml": "name: A\n", "content/authors/a.yml": "name: B\n"}, [
        "content/authors/a.yml: two authors have the slug 'a' (content/authors/a.yaml and content/authors/a.yml); "
        "rename one file",
    ])


def test_problems_of_all_author_files_together(tmp_path: Path) -> None:
    err = expect_error(tmp_path, {"content/authors/a.yaml": "nme: A\n", "content/authors/b.yaml": "name: 5\n"}, [
        f"content/authors/a.yaml:1: unknown key 'nme' (did you mean 'name'?); allowed keys: {AUTHOR_KEYS}",
        "content/authors/a.yaml:1: missing required key 'name' (text)",
        "content/authors/b.yaml:1: 'name' must be text, found the number 5; put it in quotes: '5'",
    ])
    assert str(err).splitlines()[0] == "3 problems in content/authors/a.yaml, content/authors/b.yaml"


# ----------------------------------------------------------------------------- site.yaml and pages

def test_site_unknown_key_and_bad_base_url(tmp_path: Path) -> None:
    expect_error(tmp_path, {"site.yaml": "title: T\nbase_url: ftp://x/\ntitel: x\n"}, [
        "site.yaml:2: 'base_url' must be an http(s) URL such as https://user.github.io/repo/ or a path starting "
        "with '/', found 'ftp://x/'",
        f"site.yaml:3: unknown key 'titel' (did you mean 'title'?); allowed keys: {SITE_KEYS}",
    ])


def test_site_fetch_section(tmp_path: Path) -> None:
    expect_error(tmp_path, {"site.yaml": "title: T\nfetch:\n  delay_seconds: -1\n  page_sise: 10\n"}, [
        "site.yaml:3: 'fetch.delay_seconds' must be from 0 to 600, found -1",
        "site.yaml:4: unknown key 'fetch.page_sise' (did you mean 'page_size'?); allowed keys: arxiv_api, "
        "delay_seconds, page_size, max_results, timeout_seconds, retries, retry_after_cap",
    ])


def test_page_front_matter(tmp_path: Path) -> None:
    expect_error(tmp_path, {"content/pages/x.md": "---\ntitel: X\nnav: maybe\n---\nbody\n"}, [
        "content/pages/x.md:2: unknown key 'titel' (did you mean 'title'?); allowed keys: title, description, "
        "weight, nav",
        "content/pages/x.md:2: missing required key 'title' (text)",
        "content/pages/x.md:3: 'nav' must be true or false, found the text 'maybe'",
    ])


def test_page_without_front_matter(tmp_path: Path) -> None:
    expect_error(tmp_path, {"content/pages/x.md": "# Title\n"}, [
        "content/pages/x.md:1: missing front matter: start the file with '---', a 'title: ...' line and '---'",
    ])


# ----------------------------------------------------------------------------- good values

def test_good_site_loads(tmp_path: Path) -> None:
    root = make_project(tmp_path, {
        "site.yaml": "title: T\nbase_url: https://user.github.io/repo\npaginate: 20\n",
        "content/authors/bin-cui.yaml": (
            "name: Bin Cui\n"
            "links: {orcid: 0000-0002-1825-0097, email: bin@example.org, arxiv: cui_b_1}\n"
            "include: ['2104.12250']\n"
            "sources:\n"
            "  - arxiv: {query: 'au:\"Bin Cui\"', categories: [cs.DB, cs.SY]}\n"
            "  - records:\n"
            "      - {title: '  Spaced   title ', year: 2026, subjects: [cs.CV], abstract: \"a\\n  b\"}\n"
        ),
        "content/pages/about.md": "---\ntitle: About\nweight: 2\n---\nHello\n",
    })
    cfg = load_site(root)
    assert cfg.base_url == "https://user.github.io/repo/" and cfg.base_path == "/repo/"
    assert cfg.paginate == 20
    [a] = cfg.authors
    assert [(link.kind, link.url) for link in a.links] == [
        ("orcid", "https://orcid.org/0000-0002-1825-0097"), ("arxiv", "https://arxiv.org/a/cui_b_1"),
        ("email", "mailto:bin@example.org")]
    assert a.include == ("2104.12250",)
    arxiv, records = a.sources
    assert isinstance(arxiv, ArxivSource) and arxiv.categories == ("cs.DB", "eess.SY")  # alias made canonical
    assert isinstance(records, RecordsSource)
    [r] = records.records
    assert (r.title, r.abstract, r.subjects, r.primary_subject) == ("Spaced title", "a b", ("cs.CV",), "cs.CV")
    assert [p.name for p in cfg.pages] == ["about"]


def test_base_url_override_wins(tmp_path: Path) -> None:
    root = make_project(tmp_path, {})
    assert load_site(root, base_url="https://user.github.io/repo").base_url == "https://user.github.io/repo/"
    with pytest.raises(SiteError) as info:
        load_site(root, base_url="javascript:alert(1)")
    assert "--base-url must be an http(s) URL" in str(info.value)


def test_yaml_keeps_raw_float_text_and_refuses_aliases() -> None:
    data, problems = parse_yaml("ids: [2104.12250]\n", "x.yaml")
    assert problems == []
    [value] = data["ids"]
    assert isinstance(value, YFloat) and value.raw == "2104.12250"
    with pytest.raises(SiteError) as info:
        parse_yaml("a: &x 1\nb: *x\n", "x.yaml")
    assert (info.value.line, info.value.path) == (2, "x.yaml")
    assert "aliases (*name) are not allowed" in info.value.message
