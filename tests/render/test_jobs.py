"""Jobs keyed by content (generator.render.jobs): a build reuses exactly the outputs whose inputs did
not change, and always gives the bytes of a clean build.

Checked on the demo site and on a small synthetic site (60 authors x 25 records, enough for
the build to use two processes): through the CLI as a user runs it, and in process where a
test counts which jobs ran. Which files a build made is read from their inodes: a reused
file is the old one hard-linked into the new build, so it keeps its inode.
"""

from __future__ import annotations

import dataclasses
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

from markupsafe import Markup

from generator.render import jobs
from generator.render.digest import Digester
from generator.core import routes
from generator.build import build
from generator.store.cache import CacheEntry, cache_file, read_entry, write_entry
from generator.config import load_site
from generator.core.model import Person, Record, SiteModel, record_key
from generator.write.output import spare_dir
from generator.assemble.papers import paper_key
REPO = Path(__file__).resolve().parent.parent.parent
SEARCH = routes.search_index().path   # the search index: one job, one folder
SUBJECTS = ["cs.CL", "cs.LG", "cs.CV", "cs.DB", "cs.DC", "stat.ML", "math.OC", "eess.SP"]


def cli(root: Path, *args: str, workers: int | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if workers is not None:
        env["AUTHORSITE_WORKERS"] = str(workers)
    res = subprocess.run([sys.executable, "-m", "generator", "-v", "-C", str(root), *args], capture_output=True,
                         text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return res


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def assert_same_as_clean(root: Path, tmp: Path, name: str) -> None:
    clean = tmp / f"clean-{name}"
    cli(root, "build", "--output", str(clean))
    got, want = tree(root / "output"), tree(clean)
    assert sorted(got) == sorted(want), set(got) ^ set(want)
    differing = [k for k in want if got[k] != want[k]]
    assert not differing, f"incremental build differs from a clean build in {differing[:10]}"
    # a reused file is a hard link of the last build's file, whose tree is kept as the spare
    # (output.spare_dir) until the next build: no other link
    spare = spare_dir(root / "output")
    kept = {p.stat().st_ino for p in spare.rglob("*") if p.is_file()} if spare.is_dir() else set()
    multi = [p for p in (root / "output").rglob("*") if p.is_file() and p.stat().st_nlink > 1 + (p.stat().st_ino in kept)]
    assert multi == [], "a reused file kept another hard link"


def synthetic_site(root: Path, authors: int = 60, records: int = 25) -> Path:
    rng = random.Random(7)
    (root / "content/authors").mkdir(parents=True)
    (root / "site.yaml").write_text("title: Synthetic\nbase_url: https://example.org/lab/\npaginate: 20\n")
    names = [f"Author{i:03d} Person" for i in range(authors)]
    for i, name in enumerate(names):
        (root / f"content/authors/a{i:03d}.yaml").write_text(
            f"name: {name}\nsources:\n  - arxiv: {{query: 'au:\"{name}\"'}}\n")
    config = load_site(root)
    serial = 0
    for i, a in enumerate(config.authors):
        recs = []
        for _ in range(records):
            serial += 1
            subjects = tuple(rng.sample(SUBJECTS, rng.randint(1, 3)))
            coauthors = [names[(i + rng.randint(1, authors - 1)) % authors]] if rng.random() < 0.3 else []
            rid = f"2{rng.randint(1, 5)}0{rng.randint(1, 9)}.{serial:05d}"
            recs.append(Record(
                key=f"arxiv:{rid}", title=f"On {rng.choice(['sparse', 'dense', 'latent'])} models ${serial}$",
                year=int("20" + rid[:2]), arxiv_id=rid, version=1,
                authors=tuple(Person(n) for n in [a.name, *coauthors]), abstract=f"Abstract {serial} \\emph{{x}}.",
                published=f"20{rid[:2]}-{rid[2:4]}-01T00:00:00Z", updated=f"20{rid[:2]}-{rid[2:4]}-01T00:00:00Z",
                primary_subject=subjects[0], subjects=subjects))
        path = cache_file(config.cache_path, a.slug, a.sources[0])
        assert path is not None
        write_entry(path, CacheEntry({"type": "arxiv", "query": a.sources[0].query}, "2026-01-01T00:00:00Z",
                                     tuple(recs)))
    return root



def inodes(out: Path) -> dict[str, int]:
    return {p.relative_to(out).as_posix(): p.stat().st_ino for p in out.rglob("*") if p.is_file()}


def remade(before: dict[str, int], out: Path) -> set[str]:
    """The outputs the last build made anew (the search index's folder counts once; static files,
    copied on every build, are left out)."""
    made = set()
    for rel, ino in inodes(out).items():
        if not rel.startswith("static/") and before.get(rel) != ino:
            made.add(SEARCH if rel.startswith(SEARCH + "/") else rel)
    return made


def clone(src: Path, dest: Path) -> Path:
    """A fresh clone of a site with its last output and manifest restored, as a CI cache does:
    the site's files are copied anew (so every date is new), the output and manifest as they were."""
    dest.mkdir()
    shutil.copy(src / "site.yaml", dest / "site.yaml")
    shutil.copytree(src / "content", dest / "content", copy_function=shutil.copy)   # new mtimes
    shutil.copytree(src / "output", dest / "output")
    shutil.copytree(src / ".authorsite", dest / ".authorsite")
    return dest


def test_incremental_equals_clean_on_the_demo(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    root.mkdir()
    shutil.copy(REPO / "site.yaml", root / "site.yaml")
    shutil.copytree(REPO / "content", root / "content")
    cli(root, "build")
    before = {p: p.stat().st_mtime_ns for p in (root / "output").rglob("*") if p.is_file()}
    res = cli(root, "build")
    assert "nothing changed" in res.stderr
    assert {p: p.stat().st_mtime_ns for p in (root / "output").rglob("*") if p.is_file()} == before

    author = root / "content/authors/bingning-wang.yaml"
    author.write_text(author.read_text().replace("name: Bingning Wang", "name: Bingning Wang\naffiliation: Lab"))
    res = cli(root, "build")
    assert "jobs rendered" in res.stderr and " 0 reused" not in res.stderr
    assert_same_as_clean(root, tmp_path, "author")

    (root / "templates/partials").mkdir(parents=True)
    record = (REPO / "themes/default/templates/partials/record.html").read_text()
    (root / "templates/partials/record.html").write_text(record.replace('class="badge"', 'class="badge b"'))
    res = cli(root, "build")
    assert " 0 reused" in res.stderr, "a template edit re-renders everything"
    assert 'class="badge b"' in (root / "output/authors/bin-cui/index.html").read_text()
    assert_same_as_clean(root, tmp_path, "template")

    page = root / "content/pages/about.md"
    page.write_text(page.read_text().replace("title: About", "title: About us"))
    cli(root, "build")
    assert_same_as_clean(root, tmp_path, "page")


def test_a_fresh_clone_with_the_last_output_reuses_all_but_the_jobs_an_edit_touches(tmp_path: Path) -> None:
    first = synthetic_site(tmp_path / "first")
    build(first)
    root = clone(first, tmp_path / "clone")
    assert build(root).unchanged, "the contents are the same: nothing to do"
    res = build(root, strict=True)   # strict skips the whole-build shortcut: every job is compared
    assert (res.rendered, res.reused) == (0, res.reused) and res.reused > 200

    author = root / "content/authors/a003.yaml"
    author.write_text(author.read_text() + "affiliation: Somewhere Else\n")
    before = inodes(root / "output")
    res = build(root)
    slug = load_site(root).authors[3].slug
    # data.json lists names and counts, not affiliations; the search index no affiliation; the
    # exports read the author's name and records only
    assert remade(before, root / "output") == {f"authors/{slug}/index.html", "index.html"}
    assert res.rendered == 2
    assert_same_as_clean(root, tmp_path, "clone")

    # a typed-in record added: its subject's pages, feeds, the indexes and the site-wide files too,
    # its own page and the sitemap that lists it
    author.write_text(author.read_text().replace(
        "sources:\n", "sources:\n  - records:\n      - {title: A new one, year: 2031, subjects: [cs.CL]}\n"))
    before = inodes(root / "output")
    res = build(root)
    got = remade(before, root / "output")
    pages = {p.relative_to(root / "output").as_posix() for p in (root / "output/subjects/cs.CL").rglob("*.html")}
    assert got == {f"authors/{slug}/index.html", f"authors/{slug}/feed.xml", f"authors/{slug}/publications.bib",
                   f"authors/{slug}/publications.json", *pages, "subjects/cs.CL/feed.xml", "subjects/index.html",
                   "index.html", "feed.xml", "data.json", SEARCH,
                   f"papers/{paper_key(record_key(None, None, 'A new one', 2031))}/index.html", "sitemap.xml",
                   # the lab's list shows every work: its page, feed and exports
                   "publications/index.html", "publications/feed.xml", "publications/publications.bib",
                   "publications/publications.json"}
    assert res.rendered == len(got)
    assert_same_as_clean(root, tmp_path, "clone-record")


def test_parallel_and_incremental_equal_clean_on_a_synthetic_site(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn")
    res = cli(root, "build", workers=2)
    assert "with 2 processes" in res.stderr
    serial = tmp_path / "serial"
    cli(root, "build", "--output", str(serial), workers=1)
    assert tree(root / "output") == tree(serial), "two processes and one give different bytes"

    # one record changed in one cache file: only the jobs that read it run again
    config = load_site(root)
    a = config.authors[5]
    path = cache_file(config.cache_path, a.slug, a.sources[0])
    assert path is not None
    entry = read_entry(path)
    record = entry.records[0]
    write_entry(path, dataclasses.replace(entry, records=(dataclasses.replace(record, title="A changed title"),
                                                          *entry.records[1:])))
    before = inodes(root / "output")
    cli(root, "build", workers=2)
    got = remade(before, root / "output")
    subjects = {f"subjects/{code}/" for code in record.subjects}
    must = {f"authors/{a.slug}/index.html", f"authors/{a.slug}/feed.xml", f"authors/{a.slug}/publications.bib",
            f"authors/{a.slug}/publications.json", "index.html", f"papers/{paper_key(record.key)}/index.html",
            SEARCH}   # not data.json, nor subjects/index.html: they list names and counts, not titles
    assert must <= got and "subjects/index.html" not in got
    lab = {"publications/index.html", "publications/publications.bib",
           "publications/publications.json"}   # the lab's list shows the title too (its feed, the newest)
    assert lab <= got
    assert all(p in must | lab or p in ("feed.xml", "publications/feed.xml") or p.startswith(tuple(subjects))
               for p in got), got
    assert any(p.startswith(tuple(subjects)) for p in got)
    # each subject page reads its own records and the subject's heading: of a subject's pages,
    # only the one listing the record is made again (the subject has more than one here)
    pages = sorted(p for p in got if p.startswith(tuple(subjects)) and p.endswith("index.html"))
    assert len(pages) == len(record.subjects), pages
    assert all((root / f"output/{s}page/2/index.html").is_file() for s in subjects), "a subject of one page"
    assert all("A changed title" in (root / "output" / p).read_text() for p in pages)
    assert "A changed title" in (root / f"output/authors/{a.slug}/index.html").read_text()
    assert_same_as_clean(root, tmp_path, "record")

    # an author removed, another added
    (root / "content/authors/a010.yaml").unlink()
    (root / "content/authors/zz-new.yaml").write_text(
        "name: New Person\nsources:\n  - records:\n      - {title: Typed, year: 2024, subjects: [cs.CL]}\n")
    cli(root, "build", workers=2)
    assert not (root / "output/authors/a010").exists()
    assert_same_as_clean(root, tmp_path, "authors")


def test_a_template_edit_reruns_every_job(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn", authors=6, records=4)
    first = build(root, search=False)
    (root / "templates").mkdir()
    base = (REPO / "themes/default/templates/404.html").read_text()
    (root / "templates/404.html").write_text(base + "\n")
    res = build(root, search=False)
    assert res.reused == 0 and res.rendered == first.rendered


def test_switching_between_installed_themes_reruns_every_job(tmp_path: Path) -> None:
    """Every installed theme's files are hashed into what every job reads, so which one the site
    uses must be too: switching from one to another changes no file there."""
    root = synthetic_site(tmp_path / "syn", authors=6, records=4)
    subject = (REPO / "themes/default/templates/subject.html").read_text()
    (root / "themes/alt/templates").mkdir(parents=True)
    (root / "themes/alt/templates/subject.html").write_text(subject.replace("<h1>", '<h1 class="alt">', 1))
    cli(root, "build")
    (root / "site.yaml").write_text((root / "site.yaml").read_text() + "theme: alt\n")
    cli(root, "build")
    assert 'class="alt"' in next((root / "output/subjects").glob("*/index.html")).read_text()
    assert_same_as_clean(root, tmp_path, "theme")


def _site(record_authors: dict[str, tuple[str, ...]]) -> SiteModel:
    return SiteModel(title="t", description="", base_url="/", language="en", authors=(), subjects=(), pages=(),
                     record_authors=record_authors, paginate=50, cname=None)


def test_the_digest_of_what_a_job_reads_is_canonical() -> None:
    r = Record(key="arxiv:1", title="T", year=2024, authors=(Person("Ada"),))
    site = _site({"arxiv:1": ("ada",)})
    d = Digester(site).digest
    assert d(({"a": 1, "b": (r,)},)) == d(({"b": [r], "a": 1},)), "dict order and tuple/list do not matter"
    assert d((Markup("<b>x</b>"),)) == d(("<b>x</b>",))
    assert d(("1",)) != d((1,)) != d((None,)) and d(("ab", "c")) != d(("a", "bc"))
    for changed in (dataclasses.replace(r, title="U"), dataclasses.replace(r, order=1),
                    dataclasses.replace(r, authors=(Person("Ada", ("Lab",)),))):
        assert d((changed,)) != d((r,))
    assert Digester(_site({"arxiv:1": ("bob",)})).digest((r,)) != d((r,)), \
        "who lists a record is part of it"
    # (name, count) pairs and strings, encoded a set of types at a time, by value only
    pairs = (("ada", 3), ("bob", 1))
    assert d((pairs,)) == d(([("ada", 3), ("bob", 1)],)) == d((((Markup("ada"), 3), ("bob", 1)),))
    assert d(((("ada", True),),)) != d(((("ada", 1),),)), "a bool is no count"
    assert d(((("ada", 3, 4),),)) != d(((("ada", 3),),)) and d(((2020, 3),),) != d((("2020", 3),),)
    assert d(((),)) == d(([],)) and d((("a", "b"),)) == d(([Markup("a"), "b"],)) != d(((("a", "b"),),))
    try:
        d((object(),))
    except TypeError as exc:
        assert "plain values" in str(exc)
    else:
        raise AssertionError("an object without a canonical digest must fail loudly")


def test_a_manifest_of_another_format_or_a_broken_one_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    jobs.Manifest("x", {"index.html": "d"}).write(path)
    assert jobs.Manifest.read(path) == jobs.Manifest("x", {"index.html": "d"})
    path.write_text(path.read_text().replace(f'"format": {jobs.FORMAT}', '"format": 1'))
    assert jobs.Manifest.read(path) is None
    path.write_text("{not json")
    assert jobs.Manifest.read(path) is None


def test_a_restored_clone_with_ten_records_changed_renders_only_what_they_touch(tmp_path: Path) -> None:
    """Acceptance 6 of issue 12, on a small corpus: a fresh clone with the last output/ and
    .authorsite/ restored (as the publish workflow's cache does), 10 records changed in 5 cache
    files: the build runs only the jobs those records touch, and gives a clean build's bytes."""
    first = synthetic_site(tmp_path / "first", authors=30, records=12)
    full = build(first)
    root = clone(first, tmp_path / "clone")
    config = load_site(root)
    touched, subjects, papers = set(), set(), set()
    for a in config.authors[3:8]:
        path = cache_file(config.cache_path, a.slug, a.sources[0])
        assert path is not None
        entry = read_entry(path)
        records = list(entry.records)
        for i in (0, 7):   # one of the newest and an older one
            records[i] = dataclasses.replace(records[i], title=f"Changed title {a.slug} {i}")
            subjects.update(records[i].subjects)
            papers.add(f"papers/{paper_key(records[i].key)}/index.html")
        write_entry(path, dataclasses.replace(entry, records=tuple(records)))
        touched.add(a.slug)
    before = inodes(root / "output")
    res = build(root)
    got = remade(before, root / "output")
    assert res.rendered == len(got), "the jobs counted are the files made anew"
    assert "read cache (5 authors assembled)" in dict(res.stages), \
        "the other authors come from .authorsite/ as restored (keyed by content, not dates)"
    allowed = ({"index.html", "feed.xml", "subjects/index.html", "data.json"}
               | {SEARCH} | papers | {"publications/index.html", "publications/feed.xml", "publications/publications.bib",
                                     "publications/publications.json"})   # the lab's list shows every work
    outside = {p for p in got if p not in allowed and not p.startswith(
        tuple(f"authors/{s}/" for s in touched) + tuple(f"subjects/{c}/" for c in subjects))}
    assert outside == set(), "a job that none of the changed records touches was run"
    assert all(f"authors/{s}/index.html" in got for s in touched) and papers <= got   # each its own page
    print(f"\n10 records changed: {res.rendered} of {res.rendered + res.reused} jobs run "
          f"(the first build ran {full.rendered})")
    assert res.rendered < 0.5 * (res.rendered + res.reused)   # 8 subjects: their pages are a large share here
    assert_same_as_clean(root, tmp_path, "ten-records")


@dataclasses.dataclass(frozen=True)
class _Holder:
    records: tuple[Record, ...]


def test_a_digester_kept_across_plans_gives_what_a_fresh_one_gives() -> None:
    """The preview keeps one digester between edits: when who lists a record changes, the record
    and what holds it (an author, a subject) must not keep their old digest."""
    r, s = Record(key="arxiv:1", title="T", year=2024), Record(key="arxiv:2", title="U", year=2024)
    held = _Holder((r, s))
    sites = [_site({"arxiv:1": ("ada",)}), _site({"arxiv:1": ("ada", "bob")}), _site({"arxiv:1": ("ada",)})]
    kept = Digester(sites[0])
    seen = []
    for site in sites:
        kept.renew(site)
        got = kept.digest((held, r, [s]))
        assert got == Digester(site).digest((held, r, [s]))
        seen.append(got)
    assert seen[0] == seen[2] != seen[1]


def test_a_kept_digester_reuses_a_job_digest_only_for_the_same_reads() -> None:
    """``Digester.reads``: the preview's plans after an edit find a job's digest by the identity
    of what it reads; a value that is new, or equal but of another type, is digested again."""
    r = Record(key="arxiv:1", title="T", year=2024)
    site = _site({"arxiv:1": ("ada",)})
    kept = Digester(site)
    first = kept.reads("p", ("subject", (r,), {"number": 1, "prev": None}))
    for reads in [("subject", (r,), {"number": 1, "prev": None}),                     # the same, anew
                  ("subject", (dataclasses.replace(r, title="U"),), {"number": 1, "prev": None}),
                  ("subject", (r,), {"number": True, "prev": None}),                  # 1 == True
                  ("subject", [r], {"number": 1, "prev": None}),
                  ("subject", (r,), {"number": 1, "prev": None, "next": "/2/"})]:
        assert kept.reads("p", reads) == Digester(site).digest(reads)
    assert kept.reads("p", ("subject", (r,), {"number": 1, "prev": None})) == first
    kept.renew(_site({"arxiv:1": ("ada", "bob")}))
    assert kept.reads("p", ("subject", (r,), {"number": 1, "prev": None})) != first, "a listing changed"
    assert kept.reads("q", ("feed", "2024-01-01")) == kept.reads("q", ("feed", "".join(["2024-01-01"])))
    assert kept.reads("q", ("feed", 1)) != kept.reads("q", ("feed", True))


def test_a_manifest_whose_digests_are_not_text_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text(f'{{"format": {jobs.FORMAT}, "inputs": "x", "outputs": {{"index.html": 3}}}}')
    assert jobs.Manifest.read(path) is None


def test_nothing_changed_only_while_every_output_is_there(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "a/b").mkdir(parents=True)
    for name in (".nojekyll", "index.html", "a/b/index.html"):
        (out / name).write_text("")
    manifest = jobs.Manifest("x", {"index.html": "d", "a/b/index.html": "e", "a": "f"})
    assert jobs.unchanged(manifest, "x", out)
    assert not jobs.unchanged(manifest, "y", out), "other inputs"
    (out / "a/b/index.html").unlink()
    assert not jobs.unchanged(manifest, "x", out), "an output deleted"
