"""The subjects' job digests kept from the last build (generator.incremental.subject_jobs): a plan that takes
them gives every job the digest a plan made from nothing gives, after every kind of edit, and
takes them for the subjects none of whose authors' records changed."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from test_jobs import assert_same_as_clean, cli, synthetic_site

from generator.render import jobs
from generator.render.digest import Digester
from generator.pipeline import _assemble, _read_cache, load_config, plan_site
from generator.store.cache import cache_file, read_entry, write_entry
from generator.incremental.inputs import read_inputs
from generator.incremental.parsed import ParsedInputs
from generator.incremental.subject_jobs import KIND, SubjectJobs

OPTIONS: dict[str, object] = {"base_url": None, "search": False}


def _plans(root: Path) -> tuple[dict[str, str], dict[str, str], int]:
    """(each job's digest planned with the kept subjects' digests, the same planned from nothing,
    how many outputs the kept digests gave), keeping them anew as a build does."""
    parsed = ParsedInputs(root)
    config = load_config(root, None, parsed)
    inputs = read_inputs(root, OPTIONS)
    authors, _ = _read_cache(config, False, parsed, inputs, 1)
    site = _assemble(config, authors, parsed, inputs)
    digester = Digester(site)
    taken = SubjectJobs.plan(site, digester, jobs.common_digest(root, site, OPTIONS, config.theme), parsed).known
    kept = {j.rel_path: j.digest for j in plan_site(config, site, OPTIONS, False, digester, parsed=parsed)}
    fresh = {j.rel_path: j.digest for j in plan_site(config, site, OPTIONS, False, Digester(site))}
    return kept, fresh, len(set(taken) & set(fresh))   # (a kept group may name a page no longer made)


def _edit_record(root: Path, slug: str, index: int, **changes: object) -> None:
    config = load_site_config(root)
    a = next(a for a in config.authors if a.slug == slug)
    path = cache_file(config.cache_path, a.slug, a.sources[0])
    assert path is not None
    entry = read_entry(path)
    records = list(entry.records)
    records[index] = dataclasses.replace(records[index], **changes)   # type: ignore[arg-type]
    write_entry(path, dataclasses.replace(entry, records=tuple(records)))


def load_site_config(root: Path):  # noqa: ANN201 - a test helper
    from generator.config import load_site

    return load_site(root)


def test_kept_subject_digests_are_those_a_plan_from_nothing_makes(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn", authors=12, records=10)
    cli(root, "build", "--no-search", workers=1)
    kept, fresh, known = _plans(root)
    pages = [p for p in fresh if p.startswith("subjects/") and p != "subjects/index.html"]
    grouped = pages + [p for p in fresh if p.startswith(("authors/", "papers/"))]   # subjects' and authors' jobs
    assert kept == fresh and known == len(grouped) and len(pages) > 20   # nothing changed: every group taken
    edits = [
        ("a title", lambda: _edit_record(root, "a003", 2, title="A new title")),
        ("subjects", lambda: _edit_record(root, "a005", 1, subjects=("math.AG", "cs.LG"), primary_subject="math.AG")),
        ("a date", lambda: _edit_record(root, "a007", 0, published="2011-01-01T00:00:00Z", year=2011)),
        ("an affiliation", lambda: (root / "content/authors/a001.yaml").write_text(
            (root / "content/authors/a001.yaml").read_text() + "affiliation: Elsewhere\n")),
        ("a name", lambda: (root / "content/authors/a002.yaml").write_text(
            (root / "content/authors/a002.yaml").read_text().replace("Author002 Person", "Author002 Renamed"))),
        ("the page size", lambda: (root / "site.yaml").write_text(
            (root / "site.yaml").read_text().replace("paginate: 20", "paginate: 7"))),
    ]
    for what, edit in edits:
        edit()
        kept, fresh, known = _plans(root)
        assert kept == fresh, what
        pages = [p for p in fresh if p.startswith("subjects/") and p != "subjects/index.html"]
        grouped = pages + [p for p in fresh if p.startswith(("authors/", "papers/"))]
        if what == "an affiliation":   # no record changed: every subject taken, every author but a001
            own = len([p for p in fresh if p.startswith("authors/a001/")])   # (and the pages of its papers: 10 at most)
            assert len(grouped) - own - 10 <= known <= len(grouped) - own
        if what == "a title":   # only the subjects of that record planned again, and its author
            assert len(grouped) - len(pages) < known < len(grouped)
        if what in ("a name", "the page size"):   # what every job reads changed: none taken
            assert known == 0, what


def test_a_digester_kept_from_another_plan_gives_this_sites_digests(tmp_path: Path) -> None:
    """SubjectJobs.plan renews a digester carried over from a plan of another site (the preview
    keeps one), so the fingerprints hold this site's listings, not the last one's."""
    root = synthetic_site(tmp_path / "syn", authors=6, records=6)
    cli(root, "build", "--no-search", workers=1)
    parsed = ParsedInputs(root)
    config = load_config(root, None, parsed)
    inputs = read_inputs(root, OPTIONS)
    authors, _ = _read_cache(config, False, parsed, inputs, 1)
    first = _assemble(config, authors, parsed, inputs)
    digester = Digester(first)
    plan_site(config, first, OPTIONS, False, digester, parsed=parsed)
    # another author now lists a record of a001's, under another subject: its listing, so its
    # digest, changes, on pages whose headings do not
    shared = dataclasses.replace(first.authors[1].records[0], subjects=("math.AG",), primary_subject="math.AG")
    b = config.authors[3]
    path = cache_file(config.cache_path, b.slug, b.sources[0])
    assert path is not None
    entry = read_entry(path)
    write_entry(path, dataclasses.replace(entry, records=(*entry.records, shared)))
    inputs = read_inputs(root, OPTIONS)
    authors, _ = _read_cache(config, False, parsed, inputs, 1)
    second = _assemble(config, authors, parsed, inputs)
    kept = {j.rel_path: j.digest for j in plan_site(config, second, OPTIONS, False, digester, parsed=parsed)}
    fresh = {j.rel_path: j.digest for j in plan_site(config, second, OPTIONS, False, Digester(second))}
    assert kept == fresh


def test_a_damaged_entry_is_planned_anew(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn", authors=6, records=6)
    cli(root, "build", "--no-search", workers=1)
    parsed = ParsedInputs(root)
    parsed.put(KIND, "site", b"", {"cs.LG": (b"x", (("subjects/cs.LG/index.html", 7),)), 3: "no"})
    kept, fresh, known = _plans(root)
    assert kept == fresh and known == 0
    _edit_record(root, "a001", 0, title="Retitled")
    cli(root, "build", workers=1)
    assert_same_as_clean(root, tmp_path, "subject-jobs")
