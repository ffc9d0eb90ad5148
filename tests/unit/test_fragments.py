"""generator.fragments writes the default theme's record partials in Python; it must give the
very bytes Jinja gives from the templates, and step aside when a site overrides a partial."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator import fragments
from generator.assemble import assemble
from generator.store import read_all
from generator.config import load_site
from generator.model import Person, Record, SiteModel
from generator.paths import SOURCE_THEME, builtin_theme_dir
from generator.render import _helpers
from generator.taxonomy import load_taxonomy
from generator.themes import make_environment

REPO = Path(__file__).resolve().parents[2]
NAMES = ("record_html", "record_brief", "feed_entry")


def _demo_site() -> tuple[Path, SiteModel]:
    config = load_site(REPO)
    taxonomy = load_taxonomy()
    return REPO, assemble(config, read_all(config), taxonomy)


def _both_ways(root: Path, site: SiteModel) -> tuple[dict, dict]:
    return _helpers_for(root, site, True), _helpers_for(root, site, False)


def _helpers_for(root: Path, site: SiteModel, fast: bool = True) -> dict:
    env = make_environment(root, "default")
    helpers = _helpers(env, site, load_taxonomy(), fast_fragments=fast)
    env.globals.update(helpers)   # as render.plan_tasks does
    return helpers


@pytest.mark.parametrize("name", sorted(fragments.BUILTIN_DIGESTS))
def test_digests_are_those_of_the_theme_partials(name: str) -> None:
    for theme in {SOURCE_THEME, builtin_theme_dir()}:
        source = (theme / "templates" / name).read_text("utf-8")
        assert fragments.source_digest(source) == fragments.BUILTIN_DIGESTS[name], (
            f"{name} changed: update generator/fragments.py to write the same markup, then its digest")


def test_demo_records_render_identically() -> None:
    root, site = _demo_site()
    fast, slow = _both_ways(root, site)
    records = [r for a in site.authors for r in a.records]
    assert len(records) >= 36
    for r in records:
        for name in NAMES:
            assert str(fast[name](r)) == str(slow[name](r)), (name, r.key)


text = st.lists(st.one_of(
    st.sampled_from(["<script>", "&amp;", '"', "'", "$x^2$", "\\emph{a}", "--", "{{ x }}", "\u202e", "\n",
                     "$\\frac{a}{b}$", "**b**", "é", "\U0001f9ea", " ", ":"]),
    st.text(max_size=6)), max_size=6).map("".join)
maybe = st.one_of(st.none(), text.filter(bool))


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(title=text.filter(bool), abstract=st.one_of(text, st.just("x" * 1499), st.just("y" * 1500)),
       year=st.one_of(st.none(), st.integers(0, 2100)), source=text.filter(bool),
       arxiv=st.sampled_from([None, "2401.01234", "hep-th/9901001"]), version=st.one_of(st.none(), st.integers(0, 9)),
       authors=st.lists(text.filter(bool), max_size=3), published=maybe, updated=maybe,
       subjects=st.lists(st.sampled_from(["cs.LG", "cs.CL", "math.AG", "q-bio.NC", "zz.XX"]), max_size=3,
                         unique=True),
       doi=st.sampled_from([None, "10.1000/x<y>", "10.1/abc"]), journal=maybe, comment=maybe,
       url=st.sampled_from([None, "https://example.org/a?b=1&c=<2>"]), linked=st.booleans())
def test_any_record_renders_identically(title, abstract, year, source, arxiv, version, authors, published,
                                        updated, subjects, doi, journal, comment, url, linked) -> None:
    root, site = DEMO
    r = Record(key=f"arxiv:{arxiv}" if arxiv else f"title:{title}", title=title, year=year, source=source,
               arxiv_id=arxiv, version=version, authors=tuple(Person(n, ()) for n in authors), abstract=abstract,
               published=published, updated=updated, primary_subject=subjects[0] if subjects else None,
               subjects=tuple(subjects), doi=doi, journal_ref=journal, comment=comment, url=url)
    if linked:  # listed by two profiled authors, one of whom is also a co-author
        slugs = tuple(a.slug for a in site.authors)
        site = dataclasses.replace(site, record_authors={**site.record_authors, r.key: slugs})
        r = dataclasses.replace(r, authors=(*r.authors, Person(site.authors[0].name, ())))
    fast, slow = _both_ways(root, site)
    for name in NAMES:
        assert str(fast[name](r)) == str(slow[name](r)), name


DEMO = _demo_site()


def test_an_overridden_partial_is_rendered_by_jinja(tmp_path: Path) -> None:
    root = tmp_path / "site"
    (root / "templates" / "partials").mkdir(parents=True)
    (root / "templates" / "partials" / "record.html").write_text("<li>{{ r.title }} (mine)</li>\n", "utf-8")
    _, site = DEMO
    helpers = _helpers_for(root, site)
    r = site.authors[0].records[0]
    assert str(helpers["record_html"](r)) == f"<li>{r.title} (mine)</li>\n".replace("'", "&#39;")
    assert "Abstract" in str(helpers["record_brief"](r))   # the others stay built in


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(key=st.text(max_size=100), title=st.text(max_size=40))
def test_fast_paths_agree_with_the_general_rule(key: str, title: str) -> None:
    import unicodedata

    from generator.exports import _ascii_word

    r = Record(key=key, title="t", year=None)
    assert r.anchor == "r-" + "".join(c if c.isalnum() else "-" for c in key.split(":", 1)[-1])[:80]
    general = unicodedata.normalize("NFKD", title)
    general = "".join(c for c in general if not unicodedata.combining(c)).lower()
    assert _ascii_word(title) == "".join(c for c in general if c in "abcdefghijklmnopqrstuvwxyz0123456789")
