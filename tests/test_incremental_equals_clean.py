"""A rebuild in place equals a clean build, byte for byte, whatever was edited (issue 29).

A stateful property test (hypothesis): a small lab site with a site-level override
(templates/base.html, whose footer lists every author's affiliation from ``site.authors``: a
template that reads globals no job declares), a cache file, typed-in records, a free page and
a static file. Each step makes one edit of one kind: a key of site.yaml (every key of the
schema's site table that a small site can change), the order of `groups`, an author's fields,
a typed-in record's title, a cached record's title, the free page, the static file, the
override, an author added or removed. After each, the site is rebuilt in place (its output/
and .authorsite/ kept, as `authorsite build` keeps them) and compared, file by file, with a
clean build of a copy of its inputs in a folder of its own.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import yaml
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from generator.build import build
from generator.cache import CacheEntry, cache_file, write_entry
from generator.config import load_site
from generator.model import Record
from helpers import REPO

# The built-in base.html, copied into the site and given a footer that reads every author.
_FOOTER = "  <p>Records link to their original sources. Metadata from arXiv is CC0. Built with authorsite.</p>\n"
BASE_OVERRIDE = (REPO / "themes/default/templates/base.html").read_text("utf-8").replace(
    _FOOTER, _FOOTER + '  <p class="who">{% for a in site.authors %}{{ a.name }} ({{ a.affiliation }}); '
    "{% endfor %}FOOTER</p>\n")
assert "FOOTER" in BASE_OVERRIDE

SITE = {"title": "Lab", "description": "Our lab.", "base_url": "/", "language": "en", "paginate": 6,
        "feed_size": 5, "authors_shown": 3, "groups": ["faculty", "students"], "extra": {"motto": "one"}}

CACHE_RECORDS = [
    {"key": f"arxiv:2401.0000{i}", "title": f"Cached paper {i}", "year": 2024, "source": "arXiv",
     "arxiv_id": f"2401.0000{i}", "version": 1, "authors": [{"name": "Ada Lovelace", "affiliations": []},
                                                           {"name": "Bob Babbage", "affiliations": []}],
     "abstract": f"Abstract {i}.", "published": f"2024-01-0{i}T00:00:00Z", "updated": f"2024-01-0{i}T00:00:00Z",
     "primary_subject": "cs.LG", "subjects": ["cs.LG", "stat.ML"], "other_terms": [], "doi": None,
     "journal_ref": None, "comment": None, "url": None}
    for i in range(1, 4)]

# (key, values it takes in turn): every key of the site table a small local site can change.
SITE_EDITS = {
    "title": ["Lab two", "Lab"], "description": ["Another sentence.", "Our lab."], "language": ["de", "en"],
    "paginate": [5, 6], "feed_size": [2, 5], "authors_shown": [1, 3], "venues": [True, False],
    "extra": [{"motto": "two"}, {"motto": "one"}], "cname": ["www.example.org", None],
    "contact": ["lab@example.org", None], "citations": ["openalex", None], "accent": ["#6b3fa0", None],
}
AUTHOR_EDITS = {
    "affiliation": ["Analytical Engine Laboratory", "University of London"], "role": ["Professor", "PhD student"],
    "group": ["students", "faculty"], "bio": ["Works on *engines*.", "Writes notes."],
    "aliases": [["A. Lovelace"], []], "links": [{"homepage": "https://example.org/a"}, {}],
    "pinned": [["2401.00001"], []], "filters": [{"since": 2025}, {}],
}


def _author(name: str, group: str, records: list[dict], query: str | None = None) -> dict:
    sources: list[dict] = [{"records": records}]
    if query:
        sources.insert(0, {"arxiv": {"query": query}})
    return {"name": name, "affiliation": f"{name.split()[0]} Institute", "group": group, "sources": sources}


def _typed(title: str, year: int = 2023) -> dict:
    return {"title": title, "year": year, "source": "Manual", "subjects": ["cs.DB"], "abstract": "Typed."}


class IncrementalEqualsClean(RuleBasedStateMachine):
    """One site, edited and rebuilt in place; ``tmp`` holds it and the clean builds."""

    tmp: Path   # set by the test below

    @initialize()
    def make_site(self) -> None:
        self.steps = 0
        self.root = self.tmp / f"site-{id(self)}"
        shutil.rmtree(self.root, ignore_errors=True)
        self.site = dict(SITE)
        self.authors = {
            "ada-lovelace": _author("Ada Lovelace", "faculty", [_typed("Notes on the engine")], 'au:"Ada Lovelace"'),
            "bob-babbage": _author("Bob Babbage", "students", [_typed("Difference engines", 2022)]),
        }
        self.cache = [dict(r) for r in CACHE_RECORDS]
        self._write("templates/base.html", BASE_OVERRIDE)
        self._write("content/pages/about.md", "---\ntitle: About\n---\nAbout the lab.\n")
        self._write("static/extra.css", "p.who { color: #333; }\n")
        self._write_all()
        build(self.root, workers=1)

    def _write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def _write_all(self) -> None:
        self._write("site.yaml", yaml.safe_dump({k: v for k, v in self.site.items() if v is not None},
                                                sort_keys=False))
        folder = self.root / "content/authors"
        for old in folder.glob("*.yaml") if folder.is_dir() else ():
            if old.stem not in self.authors:
                old.unlink()
        for slug, data in self.authors.items():
            self._write(f"content/authors/{slug}.yaml", yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
        config = load_site(self.root)
        ada = next(a for a in config.authors if a.slug == "ada-lovelace")
        path = cache_file(config.cache_path, ada.slug, ada.sources[0])
        path.parent.mkdir(parents=True, exist_ok=True)
        write_entry(path, CacheEntry({"type": "arxiv", "query": 'au:"Ada Lovelace"'}, "2026-01-01T00:00:00Z",
                                     tuple(Record.from_json(r, i) for i, r in enumerate(self.cache))))

    # ------------------------------------------------------------------ the edits

    @rule(key=st.sampled_from(sorted(SITE_EDITS)))
    def edit_a_site_key(self, key: str) -> None:
        values = SITE_EDITS[key]
        self.site[key] = values[(values.index(self.site.get(key)) + 1) % len(values)] \
            if self.site.get(key) in values else values[0]
        self._write_all()

    @rule()
    def reorder_groups(self) -> None:
        self.site["groups"] = list(reversed(self.site["groups"]))
        self._write_all()

    @rule(slug=st.sampled_from(["ada-lovelace", "bob-babbage"]), key=st.sampled_from(sorted(AUTHOR_EDITS)))
    def edit_an_author(self, slug: str, key: str) -> None:
        if slug in self.authors:
            values = AUTHOR_EDITS[key]
            now = self.authors[slug].get(key)
            self.authors[slug][key] = values[(values.index(now) + 1) % len(values)] if now in values else values[0]
            self._write_all()

    @rule(n=st.integers(0, 99))
    def retitle_a_typed_record(self, n: int) -> None:
        for data in self.authors.values():
            data["sources"][-1]["records"][0]["title"] = f"Typed title {n}"
            break
        self._write_all()

    @rule(i=st.integers(0, 2), n=st.integers(0, 99))
    def retitle_a_cached_record(self, i: int, n: int) -> None:
        self.cache[i] = {**self.cache[i], "title": f"Cached title {n}"}
        self._write_all()

    @rule(n=st.integers(0, 99))
    def edit_the_free_page(self, n: int) -> None:
        self._write("content/pages/about.md", f"---\ntitle: About {n}\n---\nAbout the lab, take {n}.\n")

    @rule(n=st.integers(0, 99))
    def edit_the_static_file(self, n: int) -> None:
        self._write("static/extra.css", f"p.who {{ color: #{n:03d}; }}\n")

    @rule(n=st.integers(0, 99))
    def edit_the_override(self, n: int) -> None:
        self._write("templates/base.html", BASE_OVERRIDE.replace("FOOTER", f"FOOTER {n}"))

    @rule(n=st.integers(0, 99))
    def add_an_author(self, n: int) -> None:
        self.authors[f"new-{n}"] = _author(f"New Person{n}", "students", [_typed(f"New work {n}")])
        self._write_all()

    @rule()
    def remove_an_author(self) -> None:
        extra = sorted(s for s in self.authors if s.startswith("new-"))
        if extra:
            del self.authors[extra[0]]
            self._write_all()

    # ------------------------------------------------------------------ the check

    @invariant()
    def rebuilt_in_place_equals_a_clean_build(self) -> None:
        if not hasattr(self, "root"):
            return
        self.steps += 1
        build(self.root, workers=1)
        clean = self.tmp / f"clean-{id(self)}-{self.steps}"
        clean.mkdir()
        for name in ("site.yaml", "content", "templates", "static"):
            src = self.root / name
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, clean / name)
        build(clean, workers=1)
        got, want = _tree(self.root / "output"), _tree(clean / "output")
        stale = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
        shutil.rmtree(clean)
        assert not stale, f"after step {self.steps}, the rebuild in place differs from a clean build in {stale[:12]}"


def _tree(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_a_rebuild_in_place_equals_a_clean_build_after_any_edit(tmp_path: Path) -> None:
    IncrementalEqualsClean.tmp = tmp_path
    run = IncrementalEqualsClean.TestCase
    run.settings = settings(max_examples=int(os.environ.get("AUTHORSITE_EXAMPLES", "4")), stateful_step_count=22, deadline=None,
                            derandomize="AUTHORSITE_EXAMPLES" not in os.environ,
                            suppress_health_check=list(HealthCheck), print_blob=True)
    run().runTest()
