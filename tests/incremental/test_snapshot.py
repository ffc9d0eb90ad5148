"""Authors kept from the last build (generator.incremental.snapshot): only the authors whose inputs changed
are assembled again, and a kept author gives the warnings and values a fresh one gives."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from test_jobs import assert_same_as_clean, cli, synthetic_site

from generator.core import model

from generator.incremental import hollow
from generator.build import build
from generator.check import site_warnings
from generator.config import load_site
from generator.incremental.inputs import read_inputs
from generator.incremental.parsed import ParsedInputs, entries
from generator.core.errors import SiteError
from generator.render.digest import Digester
from generator.incremental.snapshot import RECORDS, _records, load_authors, part_key
from generator.store.reader import read_all
from generator.store.cache import cache_file, read_entry, write_entry


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
    fresh = read_all(config)
    want, unfetched = site_warnings(config, fresh, with_lint=False), list(fresh.unfetched)
    assert len(want) == 2 and len(unfetched) == 1 and unfetched[0] in want[1]
    want = want[:1]   # a build says nothing of a source never fetched (check lists them)
    first = build(root, search=False, workers=1)
    assert list(first.warnings) == want
    (root / "content/authors/a000.yaml").write_text((root / "content/authors/a000.yaml").read_text() + "bio: x\n")
    second = build(root, search=False, workers=1)
    assert not second.unchanged and list(second.warnings) == want
    _, kept = _authors(root)
    assert kept.assembled == 0 and kept.warnings == want and kept.unfetched == unfetched


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


def _records_entry(root: Path, slug: str, key: bytes) -> Path:
    """The file of the parsed-input cache that keeps the records of an author's part ``key``."""
    name = ParsedInputs._key(RECORDS, slug, key).hex()
    return ParsedInputs(root).dir / name[:2] / name


def test_a_rebuild_reads_no_field_of_the_kept_records_it_does_not_show(tmp_path: Path) -> None:
    """An edit to one author re-renders its own pages and the home page: the other authors' records
    are loaded hollow (generator.incremental.hollow) and never filled, and the output is a clean build's."""
    root = synthetic_site(tmp_path / "syn", authors=30, records=4)
    # without the lab's list, which merges every author's records (generator.render.lab) and so reads them all
    (root / "site.yaml").write_text((root / "site.yaml").read_text() + "publications: false\n")
    cli(root, "build", workers=1)
    edited = root / "content/authors/a005.yaml"
    edited.write_text(edited.read_text() + "affiliation: Elsewhere\n")
    res = cli(root, "build", workers=1)
    _, authors = _authors(root)
    others = sum(len(a.records) for a in authors.authors if a.slug != "a005")
    assert f"kept records never read here: {others}\n" in res.stderr
    assert_same_as_clean(root, tmp_path, "hollow")


def test_kept_records_gone_or_damaged_are_assembled_again(tmp_path: Path) -> None:
    """The records of a kept author are read when first used, from their own entry: one deleted
    since, or holding values that are not those records, costs assembling that author again."""
    root = synthetic_site(tmp_path / "syn", authors=6, records=4)
    cli(root, "build", workers=1)
    config = load_site(root)
    inputs = read_inputs(root, {})
    a, b = config.authors[1], config.authors[2]
    _records_entry(root, a.slug, part_key(a, config, inputs, Digester())).unlink()
    ParsedInputs(root).put(RECORDS, b.slug, part_key(b, config, inputs, Digester()), (("arxiv:0", "x"),))
    shutil.rmtree(root / "output")   # every job runs: every kept record is read
    res = cli(root, "build", workers=1)
    assert "authors: 6 kept from the last build, 0 assembled" in res.stderr
    assert res.stderr.count("its kept records are gone; assembled again") == 2
    assert_same_as_clean(root, tmp_path, "gone")
    shutil.rmtree(root / "output")   # kept anew: read from their entries again
    assert "assembled again" not in cli(root, "build", workers=1).stderr


def test_a_failed_build_lets_its_hollow_records_go(tmp_path: Path) -> None:
    """A build in a long-lived process (the tests, the benchmark) that fails after loading kept
    authors leaves none of their hollow records in the process's registry."""
    root = synthetic_site(tmp_path / "syn", authors=5, records=3)
    cli(root, "build", workers=1)
    config = load_site(root)
    gone = cache_file(config.cache_path, config.authors[4].slug, config.authors[4].sources[0])
    assert gone is not None
    gone.unlink()   # a source never fetched, which --strict refuses
    before = len(hollow._HOLLOW)
    with pytest.raises(SiteError, match="--strict"):
        build(root, strict=True, workers=1)
    assert len(hollow._HOLLOW) == before


def test_cache_files_changed_under_a_build_stop_it(tmp_path: Path) -> None:
    """Hollow records whose entry is gone are assembled again from the cache files; when those
    no longer give the same records, the build stops and says to build again."""
    root = synthetic_site(tmp_path / "syn", authors=4, records=4)
    cli(root, "build", workers=1)
    config, authors = _authors(root)
    a = config.authors[1]
    key = part_key(a, config, read_inputs(root, {}), Digester())
    rows = tuple(map(hollow.row, authors.parts[1].author.records))
    _records_entry(root, a.slug, key).unlink()
    path = cache_file(config.cache_path, a.slug, a.sources[0])
    assert path is not None
    entry = read_entry(path)
    write_entry(path, dataclasses.replace(entry, records=entry.records[1:]))
    with pytest.raises(SiteError, match="changed while the site was being built"):
        _records(config, a, key, ParsedInputs(root), rows)


def test_a_part_is_keyed_by_its_author_file_or_by_its_value_when_it_names_a_photo(tmp_path: Path) -> None:
    """``part_key`` knows a configuration by its file's bytes and the site's groups (it is parsed
    from them), and by its value when it names a photo, whose file is read too."""
    from generator.core.model import Photo

    root = synthetic_site(tmp_path / "syn", authors=3, records=2)
    config = load_site(root)
    a = config.authors[0]
    key = part_key(a, config, read_inputs(root, {}), Digester())
    assert part_key(a, config, read_inputs(root, {}), Digester()) == key
    assert part_key(a, dataclasses.replace(config, groups=("staff",)), read_inputs(root, {}), Digester()) != key
    author_file = root / a.path
    author_file.write_text(author_file.read_text() + "# the same configuration, other bytes\n")
    assert part_key(a, config, read_inputs(root, {}), Digester()) != key
    photo = Photo(source="content/photos/a.png", digest="0" * 64, suffix=".png", width=10, height=10)
    one = part_key(dataclasses.replace(a, photo=photo), config, read_inputs(root, {}), Digester())
    other = part_key(dataclasses.replace(a, photo=dataclasses.replace(photo, digest="1" * 64)), config,
                     read_inputs(root, {}), Digester())
    assert one != other, "a photo's digest is in its author's key"
