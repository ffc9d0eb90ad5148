"""A cold build's author files and authors made by two processes (generator.config.authors._helping,
generator.incremental.snapshot._share): the forked helper only speeds the build up; what it does not keep,
the build's process makes, what it makes is what one process makes, and every problem is
reported by the build's process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from test_jobs import synthetic_site

from generator.config import load_site
from tests.helpers import generated_corpus
from generator.incremental.inputs import read_inputs
from generator.incremental.parsed import ParsedInputs, entries
from generator.incremental import snapshot
from generator.incremental.snapshot import _SHARE_FROM, KIND, load_authors


def _load(root: Path, workers: int, parsed: ParsedInputs | None = None):   # noqa: ANN202 - a test helper
    config = load_site(root)
    parsed = parsed or ParsedInputs(root)
    return load_authors(config, read_inputs(root, {}), parsed, workers), parsed


def _children() -> set[int]:
    """The live child processes of this one (Linux)."""
    path = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    return {int(p) for p in path.read_text().split()} if path.exists() else set()


def test_two_processes_make_the_authors_one_makes(tmp_path: Path) -> None:
    one = synthetic_site(tmp_path / "one", authors=_SHARE_FROM + 5, records=4)
    two = synthetic_site(tmp_path / "two", authors=_SHARE_FROM + 5, records=4)
    alone, _ = _load(one, 1)
    before = _children()
    shared, parsed = _load(two, 2)
    assert shared.parts == alone.parts and shared.keys == alone.keys and shared.assembled == _SHARE_FROM + 5
    assert _children() <= before, "the helper was left running"
    kept = [p for p in entries(two) if p.parent.parent.name == parsed.dir.name]
    assert len(kept) >= _SHARE_FROM + 5, "every author's part is kept, the helper's too"
    again, parsed = _load(two, 2)
    assert again.assembled == 0 and again.parts == alone.parts


def test_a_helper_that_keeps_nothing_leaves_the_build_its_authors(tmp_path: Path) -> None:
    """The cache folder cannot be made (a file stands where it goes): the helper's parts are not
    kept, and the build's process makes them itself."""
    root = synthetic_site(tmp_path / "syn", authors=_SHARE_FROM + 3, records=3)
    alone, _ = _load(root, 1, ParsedInputs(root, write=False))
    parsed = ParsedInputs(root)
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file")
    parsed.dir = blocked / "parsed"
    shared, _ = _load(root, 2, parsed)
    assert shared.parts == alone.parts and shared.assembled == _SHARE_FROM + 3
    assert parsed.lookup(KIND, load_site(root).authors[-1].slug, shared.keys[-1]) is None, "nothing was kept"


def test_author_files_parsed_with_a_helper_are_those_parsed_alone(tmp_path: Path) -> None:
    """generator.config.authors._helping: a forked process parses the later half of the author
    files while the build reads them all; the configuration is the same, and a broken file in
    the helper's half is reported by the build's process, with its file and line."""
    from generator.config.authors import _HELP_FROM
    from generator.config.site import load_site as load
    from generator.core.errors import SiteError

    root = synthetic_site(tmp_path / "syn", authors=_HELP_FROM + 4, records=1)
    alone = load(root, parsed=ParsedInputs(root, write=False))
    before = _children()
    parsed = ParsedInputs(root)
    helped = load(root, parsed=parsed, helper=True)
    assert helped == alone and _children() <= before
    assert parsed.misses == _HELP_FROM + 4 and parsed.hits == 0, "what the helper parsed counts as parsed now"
    again = ParsedInputs(root)
    assert load(root, parsed=again, helper=True) == alone and again.hits == _HELP_FROM + 4
    broken = root / "content/authors/a040.yaml"
    broken.write_text(broken.read_text() + "affiliation: [unclosed\n")
    for attempt in range(2):   # the second time the helper has seen the file too
        try:
            load(root, parsed=ParsedInputs(root), helper=True)
        except SiteError as exc:
            assert "content/authors/a040.yaml:5: YAML syntax error" in str(exc), str(exc)
        else:
            raise AssertionError("the broken file was not reported")
    assert _children() <= before


def test_no_helper_parses_author_files_when_they_are_parsed_already(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A rebuild finds the helper's first and last files parsed: no process is forked to read
    the cache the build reads anyway; one of them edited, the helper is forked as before."""
    from generator.config import authors as config_authors
    from generator.config.authors import _HELP_FROM
    from generator.config.site import load_site as load

    root = synthetic_site(tmp_path / "syn", authors=_HELP_FROM + 4, records=1)
    forked: list[object] = []
    real = config_authors.fork_helper
    monkeypatch.setattr(config_authors, "fork_helper", lambda work: forked.append(work) or real(work))
    first = load(root, parsed=ParsedInputs(root), helper=True)
    assert len(forked) == 1
    assert load(root, parsed=ParsedInputs(root), helper=True) == first and len(forked) == 1
    last = sorted((root / "content/authors").iterdir())[-1]
    last.write_text(last.read_text() + "affiliation: Elsewhere\n")
    again = load(root, parsed=ParsedInputs(root), helper=True)
    assert len(forked) == 2 and again.authors[-1].affiliation == "Elsewhere"


def test_a_reader_shares_values_across_authors_only_while_their_parts_are_held(tmp_path: Path) -> None:
    """The build in memory holds every part it makes: a paper two authors list is one title
    string. A helper, or the index, lets each author's records go once kept: there each author
    has a reader of its own, or the reader's shared values would keep every title and abstract
    the process read (1.5 GB in each helper at 20,000 x 100, issue 42)."""
    root = generated_corpus(tmp_path, 8, 10)   # (a fifth of its papers listed by several authors)
    config = load_site(root)
    inputs, parsed = read_inputs(root, {}), ParsedInputs(root)
    keys = [snapshot.part_key(a, config, inputs, snapshot.Digester()) for a in config.authors]
    todo = [(i, a, key) for i, (a, key) in enumerate(zip(config.authors, keys))]

    def titles(then: object) -> dict[str, list[int]]:
        found: list = [None] * len(todo)
        snapshot._make(config, todo, found, parsed, then)   # type: ignore[arg-type]
        out: dict[str, list[int]] = {}
        for part in found:
            for r in part.author.records:
                out.setdefault(r.title, []).append(id(r.title))
        return {t: ids for t, ids in out.items() if len(ids) > 1}

    shared = titles(snapshot._as_is)
    assert shared, "the synthetic site has papers that several authors list"
    assert all(len(set(ids)) == 1 for ids in shared.values()), "held together: one string a title"
    apart = titles(lambda part, key: part)   # (a part given to the index: its records let go)
    assert apart.keys() == shared.keys()
    assert all(len(set(ids)) == len(ids) for ids in apart.values()), "let go: a reader an author"
