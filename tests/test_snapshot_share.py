"""A cold build's authors made by two processes (generator.snapshot._share): the forked helper
only speeds the build up; what it does not keep, the build's process makes, and the authors
are those one process makes."""

from __future__ import annotations

import os
from pathlib import Path

from test_jobs import synthetic_site

from generator.config import load_site
from generator.inputs import read_inputs
from generator.parsed import ParsedInputs, entries
from generator.snapshot import _SHARE_FROM, KIND, load_authors


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
