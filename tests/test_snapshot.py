"""Authors kept from the last build (generator.snapshot): only the authors whose inputs changed
are assembled again, and a kept author gives the warnings and values a fresh one gives."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from test_jobs import assert_same_as_clean, cli, synthetic_site

from generator.build import build
from generator.check import site_warnings
from generator.config import load_site
from generator.inputs import read_inputs
from generator.parsed import ParsedInputs, entries
from generator.snapshot import load_authors
from generator.store import read_all
from generator.cache import cache_file, read_entry, write_entry


def _authors(root: Path):   # noqa: ANN202 - a test helper
    config = load_site(root)
    return config, load_authors(config, read_inputs(root, {}), ParsedInputs(root))


def test_only_the_authors_whose_inputs_changed_are_assembled_again(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn", authors=6, records=4)
    config, first = _authors(root)
    assert first.assembled == 6
    _, again = _authors(root)
    assert again.assembled == 0 and again.authors == first.authors
    a = config.authors[2]
    path = cache_file(config.cache_path, a.slug, a.sources[0])
    assert path is not None
    path.write_bytes(path.read_bytes().replace(b"On ", b"Of "))
    (root / f"content/authors/{config.authors[4].slug}.yaml").write_text(
        (root / f"content/authors/{config.authors[4].slug}.yaml").read_text() + "affiliation: Elsewhere\n")
    _, third = _authors(root)
    assert third.assembled == 2
    assert [x.slug for x, y in zip(third.authors, first.authors) if x != y] == [a.slug, config.authors[4].slug]


def test_a_kept_author_gives_the_warnings_of_a_fresh_read(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn", authors=4, records=3)
    config = load_site(root)
    broken = cache_file(config.cache_path, config.authors[1].slug, config.authors[1].sources[0])
    assert broken is not None
    broken.write_text("{not json")
    missing = cache_file(config.cache_path, config.authors[3].slug, config.authors[3].sources[0])
    assert missing is not None
    missing.unlink()
    want = site_warnings(config, read_all(config), with_lint=False)
    assert len(want) == 2
    first = build(root, search=False, workers=1)
    assert list(first.warnings) == want
    (root / "content/authors/a000.yaml").write_text((root / "content/authors/a000.yaml").read_text() + "bio: x\n")
    second = build(root, search=False, workers=1)
    assert not second.unchanged and list(second.warnings) == want
    _, kept = _authors(root)
    assert kept.assembled == 0 and kept.warnings == want


def test_kept_job_digests_follow_who_lists_a_record(tmp_path: Path) -> None:
    """Each author's job digests are kept with its part key and its records' listings: an author
    whose part is unchanged but one of whose records another author now lists too is digested
    anew (a record's digest holds who lists it); a damaged entry is only a cost."""
    root = synthetic_site(tmp_path / "syn", authors=6, records=4)
    cli(root, "build", workers=1)
    res = cli(root, "build", "--base-url", "https://example.org/other/", workers=1)   # not 'nothing changed'
    assert "job digests: 6 authors' kept from the last build" in res.stderr
    config = load_site(root)
    a, b = config.authors[1], config.authors[3]
    shared = read_entry(cache_file(config.cache_path, a.slug, a.sources[0])).records[0]   # type: ignore[arg-type]
    path = cache_file(config.cache_path, b.slug, b.sources[0])
    assert path is not None
    entry = read_entry(path)
    write_entry(path, dataclasses.replace(entry, records=(*entry.records, shared)))
    res = cli(root, "build", workers=1)
    assert "job digests: 4 authors' kept from the last build" in res.stderr   # not a (listing), nor b (part)
    assert_same_as_clean(root, tmp_path, "listed")
    for entry_path in entries(root):   # every entry damaged: each ignored, the build still equals a clean one
        entry_path.write_bytes(entry_path.read_bytes()[:-3] + b"xyz")
    (root / "content/authors/a000.yaml").write_text((root / "content/authors/a000.yaml").read_text() + "bio: x\n")
    res = cli(root, "build", workers=1)
    assert "job digests: 0 authors' kept from the last build" in res.stderr
    assert_same_as_clean(root, tmp_path, "damaged")
