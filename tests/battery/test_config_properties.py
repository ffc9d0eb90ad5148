"""Property tests (hypothesis) of config loading and the build: hostile text in every field of
an author file and of a typed-in record.

Random text mixes control characters, bidi overrides (U+202E), zero-width and BOM
characters, astral characters, Jinja syntax, Markdown and LaTeX syntax, ``<script>``,
event handlers and ``javascript:`` URLs. The author file is written with
``yaml.safe_dump`` (so the YAML itself is valid) and built in-process with
``generator.build.build`` into a fresh folder. Every example must either build, with
every page parsing, no executable markup (no script but JSON-LD and our own files, no
event handler, no unsafe URL) and every XML file well-formed, or fail with a
``SiteError`` (one clear message); any other exception is a bug.

Each fresh folder starts with the theme's templates compiled (``compiled``): the build's own
cache of compiled templates, made once by a build of a plain author. Compiling the templates
was four fifths of an example's time, the same work for every example: an author's text
reaches the pages when they render, never the templates' code.
"""

from __future__ import annotations

import shutil
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from batterykit import page_problems, parse_page, write_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.core.errors import SiteError

FRAGMENTS = [
    "<script>alert(1)</script>", "</script>", "<img src=x onerror=alert(1)>", '"><svg onload=alert(1)>',
    "javascript:alert(1)", "JaVaScRiPt:alert(1)", "&#106;avascript:", "{{ 7*7 }}", "{% include 'base.html' %}",
    "{{", "}}", "{%", "%}", "{#", "[x](javascript:alert(1))", "<a href='javascript:alert(1)'>a</a>", "**b**", "# h",
    "> q", "`code`", "$x^2$", "$", "\\href{javascript:alert(1)}{x}", "\\emph{", "}", "<!-->", "<![CDATA[", "]]>",
    "&amp;", "&", "<", ">", '"', "'", "\u202e", "\u202c", "\u2066", "\u200b", "\u200f", "\ufeff", "\x00", "\x07",
    "\x1b[31m", "\x7f", "\x85", "\u2028", "\U0001f9ea", "\U0001d518", "\u0308", "\n", "\t", "\r\n", "  ",
    "</title>", "</textarea>", "--", "-->", "<style>", "url(javascript:alert(1))", "@import", "\\", "/*",
]
hostile_text = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS),
              st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)),
    min_size=0, max_size=8).map("".join)

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    derandomize=True, database=None)


def _write_site(root: Path, author: dict) -> None:
    write_files(root, {"site.yaml": "title: Property site\nbase_url: /\n"})
    (root / "content" / "authors").mkdir(parents=True)
    (root / "content" / "authors" / "eve.yaml").write_text(yaml.safe_dump(author, allow_unicode=True), "utf-8")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``.authorsite/jinja`` of a build of this site with a plain author whose record has every
    field the examples fill: the templates the examples render, compiled (Jinja's bytecode cache,
    each entry checked against its template's source; a template missing from it is compiled)."""
    from generator.build import build

    root = tmp_path_factory.mktemp("compiled") / "site"
    record = {"title": "A title", "year": 2024, "abstract": "An abstract.", "authors": ["Eve", "Ann Lee"],
              "journal_ref": "A journal", "comment": "A comment", "source": "A source", "subjects": ["cs.CR"]}
    _write_site(root, {"name": "Eve", "affiliation": "A lab", "bio": "A bio.", "aliases": ["E. Example"],
                       "sources": [{"records": [record]}]})
    build(root, search=False)
    return root / ".authorsite" / "jinja"


def _build(author: dict, compiled: Path) -> tuple[Path | None, SiteError | None, tempfile.TemporaryDirectory]:
    from generator.build import build

    tmp = tempfile.TemporaryDirectory(prefix="battery-prop-")
    root = Path(tmp.name) / "site"
    _write_site(root, author)
    if compiled.is_dir():
        shutil.copytree(compiled, root / ".authorsite" / "jinja")
    try:
        return build(root, search=False).out_dir, None, tmp
    except SiteError as exc:
        return None, exc, tmp


def _check(out: Path | None, exc: SiteError | None) -> str:
    if exc is not None:
        text = str(exc)
        assert text.strip() and "Traceback" not in text and len(text) < 20_000, text[:500]
        assert exc.exit_code == 1
        return ""
    assert out is not None
    problems = []
    for page in sorted(out.rglob("*.html")):
        problems += [f"{page.relative_to(out)}: {p}" for p in page_problems(page.read_text("utf-8"), "/", ())]
    assert not problems, "\n".join(problems[:10])
    for xml in out.rglob("*.xml"):
        ET.parse(xml)      # feeds and sitemap stay well-formed XML whatever the text
    return "".join(parse_page((out / "authors/eve/index.html").read_text("utf-8")).text)


@SETTINGS
@given(name=hostile_text, affiliation=hostile_text, bio=hostile_text, aliases=st.lists(hostile_text, max_size=3))
def test_hostile_author_file(compiled: Path, name: str, affiliation: str, bio: str, aliases: list[str]) -> None:
    out, exc, tmp = _build({"name": name, "affiliation": affiliation, "bio": bio, "aliases": aliases,
                            "sources": [{"records": [{"title": "A fixed title", "year": 2024}]}]}, compiled)
    with tmp:
        text = _check(out, exc)
        if out is not None and "<script>" in name and "\x00" not in name:
            assert "<script>" in text, "the name's <script> is not shown as text"


@SETTINGS
@given(title=hostile_text, abstract=hostile_text, authors=st.lists(hostile_text, max_size=4),
       journal_ref=hostile_text, comment=hostile_text, source=hostile_text)
def test_hostile_typed_in_record(compiled: Path, title: str, abstract: str, authors: list[str], journal_ref: str,
                                 comment: str, source: str) -> None:
    record = {"title": title, "year": 2024, "abstract": abstract, "authors": authors, "journal_ref": journal_ref,
              "comment": comment, "source": source, "subjects": ["cs.CR"]}
    out, exc, tmp = _build({"name": "Eve", "sources": [{"records": [record]}]}, compiled)
    with tmp:
        text = _check(out, exc)
        if out is not None and "{{ 7*7 }}" in title:
            assert "{{ 7*7 }}" in text or "{{ 7*7 }}" not in " ".join(title.split()), "template syntax evaluated"


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(data=st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | hostile_text,
                         lambda inner: st.lists(inner, max_size=3) | st.dictionaries(hostile_text, inner, max_size=3),
                         max_leaves=12))
def test_random_yaml_values_in_an_author_file(compiled: Path, data: object) -> None:
    """Random YAML mutations: any value under any key is valid or one clear report, never a crash."""
    out, exc, tmp = _build({"name": "Eve", "affiliation": data, "links": data, "filters": data,
                            "sources": [data] if data is not None else []}, compiled)
    with tmp:
        _check(out, exc)
