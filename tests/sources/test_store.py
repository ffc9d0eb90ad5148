"""generator.store.reader: the one reader of content/cache/, by key, with one policy for bad files.

Real files and the real CLI: a cache file is found by (author, the source's cache key)
whatever the order of the author's sources, and build, review, check and fetch print
the same warning for a cache file they cannot read.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from atomgen import entry_xml
from fakearxiv import Corpus
from fetchkit import run_cli, write_site

from generator.store import cache
from generator.assemble.site import assemble
from generator.config import load_site
from generator.core.model import Person, Record
from generator.store.record_json import to_json
from generator.store.reader import read_all, unfetched_warning
from generator.core.taxonomy import load_taxonomy

ARXIV = "  - arxiv: {query: 'au:\"Ada\"', categories: [cs.DB]}\n"
FEED = "  - feed: {url: 'https://example.org/ada.xml', label: Blog}\n"
TYPED = "  - records:\n      - {title: Typed in by hand, year: 2020, abstract: x, subjects: [cs.DB]}\n"
ADA = Person("Ada Lovelace", ("Analytical Engines",))


def _rec(arxiv_id: str, title: str, source: str = "arXiv") -> Record:
    return Record(key=f"arxiv:{arxiv_id}", title=title, year=2024, source=source, arxiv_id=arxiv_id,
                  authors=(ADA,), abstract="An abstract.", subjects=("cs.DB",), primary_subject="cs.DB")


def _seed(root: Path) -> None:
    """One cache file per fetched source of ada, each with its own records."""
    config = load_site(root)
    (author,) = config.authors
    contents = {"arxiv": (_rec("2401.00001", "From the query"), _rec("2401.00002", "Also from the query")),
                "feed": (_rec("2402.00003", "From the blog", "Blog"),)}
    for source in author.sources:
        description = cache.source_description(source)
        if description["type"] in contents:
            path = cache.cache_file(config.cache_path, "ada", source)
            assert path is not None
            cache.write_entry(path, cache.CacheEntry(description, "2026-01-01T00:00:00Z",
                                                     contents[description["type"]]))


def test_entries_are_found_by_key_whatever_the_order_of_the_sources(tmp_path: Path) -> None:
    root = write_site(tmp_path / "site", {"ada": "name: Ada\nsources:\n" + ARXIV + FEED + TYPED})
    _seed(root)
    config = load_site(root)
    store = read_all(config)
    before = assemble(config, store, load_taxonomy())
    for source in config.authors[0].sources:
        entry = store.entry("ada", source)
        assert entry is None or entry.source == cache.source_description(source)
    assert len(store.entries) == 2 and not store.warnings and not store.notes

    # the same sources, in the opposite order: every cache file still meets its own source
    (root / "content/authors/ada.yaml").write_text("name: Ada\nsources:\n" + TYPED + FEED + ARXIV)
    old_store, config = store, load_site(root)
    store = read_all(config)
    assert store.entries == old_store.entries     # keyed by (slug, cache key): the order is no part of it
    feed, arxiv = (s for s in config.authors[0].sources if cache.source_key(s))
    assert [r.title for r in store.entry("ada", feed).records] == ["From the blog"]        # type: ignore[union-attr]
    assert [r.title for r in store.entry("ada", arxiv).records] == ["From the query",       # type: ignore[union-attr]
                                                                    "Also from the query"]
    after = assemble(config, store, load_taxonomy())
    assert sorted(r.title for r in after.authors[0].records) == sorted(r.title for r in before.authors[0].records)
    assert len(after.authors[0].records) == 4


def test_equal_values_are_shared_across_files_and_records_equal_the_plain_reader(tmp_path: Path) -> None:
    root = write_site(tmp_path / "site", {"ada": "name: Ada\nsources:\n" + ARXIV + FEED})
    _seed(root)
    config = load_site(root)
    store = read_all(config)
    records = [r for e in store.entries.values() for r in e.records]
    people = {id(p) for r in records for p in r.authors}
    assert len(records) == 3 and len(people) == 1            # one Person object for the co-author
    for source in config.authors[0].sources:
        path = cache.cache_file(config.cache_path, "ada", source)
        assert path is not None
        assert store.entry("ada", source).records == cache.read_entry(path).records   # type: ignore[union-attr]


def test_never_fetched_sources_are_listed_apart(tmp_path: Path) -> None:
    """Never fetched is a normal state (a fresh clone, a new author): listed by file and line, for
    check's one list (store.unfetched_warning), not a warning of every build."""
    root = write_site(tmp_path / "site", {"ada": "name: Ada\nsources:\n" + ARXIV + TYPED})
    store = read_all(load_site(root))
    assert store.unfetched == ("content/authors/ada.yaml:3: arXiv query 'au:\"Ada\"'",)
    assert not store.entries and not store.warnings and not store.notes
    assert unfetched_warning(store.unfetched) == [
        "1 source not fetched yet; run 'authorsite fetch' (until then the site is built from the other sources):"
        "\n  content/authors/ada.yaml:3: arXiv query 'au:\"Ada\"'"]


def _warning_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "ignoring it until the next good fetch" in line]


def _site_with_arxiv_cache(arxiv_server, tmp_path: Path) -> tuple[Path, Path]:  # noqa: ANN001
    """Ada's site (an arXiv query and a typed-in record) over a fake arXiv that has one paper,
    and the path of the query's cache file (not written yet)."""
    s = arxiv_server(Corpus([entry_xml("2401.01234", title="Fetched again", authors=("Ada",),
                                       categories=("cs.DB",))]))
    root = write_site(tmp_path / "site", {"ada": "name: Ada\nsources:\n" + ARXIV + TYPED}, api=s.url)
    config = load_site(root)
    path = cache.cache_file(config.cache_path, "ada", config.authors[0].sources[0])
    assert path is not None
    return root, path


def test_one_policy_for_an_unreadable_cache_file(arxiv_server, tmp_path: Path) -> None:
    """build, review, check and fetch print the same warning, naming the file; the first three go on
    without it, and the fetch replaces it."""
    root, path = _site_with_arxiv_cache(arxiv_server, tmp_path)
    config = load_site(root)
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"format": 1, "records": [')
    rel = path.relative_to(root).as_posix()

    runs: dict[str, subprocess.CompletedProcess[str]] = {
        "build": run_cli(root, "build"), "review": run_cli(root, "review", "ada"), "check": run_cli(root, "check")}
    expected = None
    for name, res in runs.items():
        assert res.returncode == 0, (name, res.stderr)
        (line,) = _warning_lines(res.stderr)
        assert re.match(rf"^warning: {re.escape(rel)}: unreadable cache file \(", line), (name, line)
        expected = expected or line
        assert line == expected, name
    assert "unreadable: unreadable cache file (" in runs["review"].stdout
    assert "Typed in by hand" in (root / "output/authors/ada/index.html").read_text("utf-8")

    fetched = run_cli(root, "fetch")
    assert fetched.returncode == 0, fetched.stderr
    assert _warning_lines(fetched.stderr) == [expected]
    assert [r.title for r in cache.read_entry(path).records] == ["Fetched again"]
    assert not _warning_lines(run_cli(root, "build").stderr)


HOSTILE_RECORDS = [   # (what was written in the record, what the warning says)
    ({"year": "2023"}, "'year' must be a whole number, found text '2023'"),
    ({"title": ["a list"]}, "'title' must be text, found a list"),
    ({"arxiv_id": 12345}, "'arxiv_id' must be text, found a number 12345"),
    ({"arxiv_id": '2401.99999"><script>x</script>'}, "is not an arXiv id"),
    ({"published": "yesterday"}, "'published' 'yesterday' is not a date"),
    ({"subjects": "cs.DB"}, "'subjects' must be a list, found text"),
    ({"authors": "Jane"}, "'authors' must be a list, found text"),
    ({"authors": [{"name": 5}]}, "'authors' must hold objects with a 'name' text"),
    ({"links": [["code"]]}, "'links' must hold pairs of texts"),
    ({"version": True}, "'version' must be a whole number, found true/false"),
]


def test_a_record_that_cannot_be_one_is_left_out_with_a_warning_and_the_rest_builds(arxiv_server,
                                                                                     tmp_path: Path) -> None:
    """A committed cache file is edited by hand and merged by git. A value of the wrong type passed
    the reader and crashed the build later, in a sort ('<' between str and int) or a template, with
    a traceback, while check said "no problems". Each bad record is now left out with a warning
    naming the file, the record and the field; a subject that is no arXiv category is dropped from
    its record (its chip linked to a page that does not exist); check says the same. fetch, which
    writes the file back, takes such a file as unreadable, so it never writes it with a record less."""
    root, path = _site_with_arxiv_cache(arxiv_server, tmp_path)
    config = load_site(root)
    good = to_json(_rec("2401.00001", "Good record"))
    chipped = {**to_json(_rec("2401.00002", "Odd subject")), "subjects": ["cs.DB", "<script>alert(1)</script>"]}
    bad = [{**to_json(_rec(f"2401.{10 + i:05d}", f"Bad {i}")), **change} for i, (change, _) in enumerate(HOSTILE_RECORDS)]
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"format": 1, "source": cache.source_description(config.authors[0].sources[0]),
                                "fetched_at": "2026-01-01T00:00:00Z", "records": [good, chipped, *bad]}))
    rel = path.relative_to(root).as_posix()

    built, checked = run_cli(root, "build"), run_cli(root, "check")
    assert built.returncode == 0 and checked.returncode == 0, built.stderr + checked.stderr
    assert "Traceback" not in built.stderr + checked.stderr
    warned = [line for line in built.stderr.splitlines() if line.startswith("warning: content/cache/")]
    assert warned == [line for line in checked.stderr.splitlines() if line.startswith("warning: content/cache/")]
    assert f"warning: {rel}: record 2 ('arxiv:2401.00002'): unknown subject '<script>alert(1)</script>' " \
           "(no arXiv category); left out of the record's subjects" in warned
    for i, (_, said) in enumerate(HOSTILE_RECORDS):
        line = next((w for w in warned if f"record {i + 3} " in w), None)
        assert line is not None and line.startswith(f"warning: {rel}: record {i + 3} ") and said in line, (said, warned)
        assert "this record is left out" in line
    page = (root / "output/authors/ada/index.html").read_text("utf-8")
    assert "Good record" in page and "Odd subject" in page and "Typed in by hand" in page
    assert "Bad " not in page and "alert(1)" not in page
    assert run_cli(root, "check", "--strict").returncode == 1

    fetched = run_cli(root, "fetch")
    assert fetched.returncode == 0, fetched.stderr
    assert any(w.startswith(f"warning: {rel}: record 3 ") and "ignoring it until the next good fetch" in w
               for w in _warning_lines(fetched.stderr)), fetched.stderr


def test_decode_reads_what_json_reads_and_refuses_what_it_refuses() -> None:
    """cache.decode parses with orjson and falls back to json: the same values for every file
    json reads (lone surrogate escapes, NaN, huge integers included), the same message for
    every file it refuses."""
    import json

    import pytest

    good = [b'{"format": 1, "records": [{"title": "A\\u00e9 \\ud83d\\ude00 \\u2028 <&>"}]}',
            b'{"format": 1, "records": [], "x": "\\ud800 lone"}', b'{"format": 1, "y": NaN, "n": 123456789012345678901234}',
            b' \n{"format": 1, "d": {"a": 1, "a": 2}, "f": 1.5e300, "e": []}\t', '{"format": 1, "t": "é"}'.encode()]
    for raw in good:
        assert repr(cache.decode(raw)) == repr(json.loads(raw.decode("utf-8"))), raw
    bad = [b'{"format": 1, "records": [', b'\xef\xbb\xbf{"format": 1}', b'{"format": 1, "t": "\xff"}',
           b'{"format": 1, "t": "a\x01b"}', b"", b"[1]"]
    for raw in bad:
        with pytest.raises(ValueError) as got:
            cache.decode(raw)
        try:
            json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            assert str(got.value) == f"unreadable cache file ({exc})", raw
        else:
            assert "not a cache file of format 1" in str(got.value)
