"""The ``authorsite`` command line, run as a real subprocess: every command, its exit status and its errors.

Bad configuration: one report on stderr naming file:line, the key and a hint, exit
status 1, no traceback, and ``output/`` byte-for-byte as the previous good build left it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.config import load_site
from generator.core.paths import lock_path, old_dir, staging_dir
from helpers import build, copy_demo, fresh_copy, holding_lock, leftovers, make_project, run_cli, tree_state

GOOD_AUTHOR = """\
name: Ada Lovelace
affiliation: Analytical Engines Ltd
sources:
  - records:
      - title: Notes on the engine
        year: 2020
        subjects: [cs.LG]
        abstract: Typed in by hand.
"""
GOOD_PAGE = """\
---
title: About
---
Hello.
"""


@pytest.fixture(scope="module")
def _good_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_project(tmp_path_factory.mktemp("good"),
                        {"content/authors/ada.yaml": GOOD_AUTHOR, "content/pages/about.md": GOOD_PAGE})
    build(root)
    assert (root / "output" / "authors/ada/index.html").is_file()
    return root


@pytest.fixture
def good_site(_good_template: Path, tmp_path: Path) -> Path:
    """A small site with a good build in output/ (a copy of one built once per module)."""
    return fresh_copy(_good_template, tmp_path / "site")


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _fails_cleanly(root: Path, *args: str) -> str:
    """Run a build that must fail on configuration; return its stderr."""
    before = tree_state(root / "output")
    assert before, "the fixture should have built output/ first"
    res = run_cli("-C", root, "build", *args)
    assert res.returncode == 1, f"exit {res.returncode}\n{res.stderr}"
    assert "Traceback" not in res.stderr, res.stderr
    # one report: a problem, or the problems one a line ('error: FILE:LINE: ...') and what became of them
    lines = res.stderr.splitlines()
    errors = [n for n, line in enumerate(lines) if line.startswith("error: ")]
    assert errors and errors == list(range(len(errors))), f"expected one report:\n{res.stderr}"
    assert len(errors) == 1 or lines[len(errors)].startswith("build failed: "), res.stderr
    assert tree_state(root / "output") == before, "a failed build changed output/"
    assert leftovers(root / "output") == [], "a failed build left a staging folder"
    return res.stderr


# ============================================================================ acceptance 6

# (case id, files to write, files to remove, substrings the report must contain)
BAD_CONFIGS = [
    ("unknown-key",
     {"content/authors/ada.yaml": "name: Ada\naffilation: Engines\n"}, [],
     ["content/authors/ada.yaml:2:", "unknown key 'affilation'", "(did you mean 'affiliation'?)",
      "allowed keys: name, name_native, name_native_lang, affiliation"]),
    ("unknown-nested-key",
     {"content/authors/ada.yaml": "name: Ada\nlinks:\n  homepge: https://example.org/\n"}, [],
     ["content/authors/ada.yaml:3:", "unknown key 'links.homepge'", "(did you mean 'homepage'?)"]),
    ("wrong-type-name",
     {"content/authors/ada.yaml": "name: [a, b]\n"}, [],
     ["content/authors/ada.yaml:1:", "'name' must be text, found a list"]),
    ("wrong-type-year",
     {"content/authors/ada.yaml": "name: Ada\nsources:\n  - records:\n      - {title: T, year: many}\n"}, [],
     ["content/authors/ada.yaml:4:", "'sources[0].records[0].year' must be a whole number from 1900 to 2100",
      "found the text 'many'"]),
    ("wrong-type-sources",
     {"content/authors/ada.yaml": "name: Ada\nsources: {arxiv: x}\n"}, [],
     ["content/authors/ada.yaml:2:", "'sources' must be a list", "found a mapping"]),
    ("missing-name",
     {"content/authors/ada.yaml": "affiliation: Engines\n"}, [],
     ["content/authors/ada.yaml:1:", "missing required key 'name'"]),
    ("empty-author-file",
     {"content/authors/ada.yaml": "# nothing yet\n"}, [],
     ["content/authors/ada.yaml:1:", "expected a mapping"]),
    ("two-authors-one-slug",
     {"content/authors/ada.yml": "name: Ada again\n"}, [],
     ["content/authors/ada.yml", "two authors have the slug 'ada'", "content/authors/ada.yaml", "rename one file"]),
    ("arxiv-id-read-as-number",
     {"content/authors/ada.yaml": "name: Ada\ninclude: [2104.12250]\n"}, [],
     ["content/authors/ada.yaml:2:", "'include[0]'", "2104.12250", "the number 2104.1225", "put it in quotes",
      "'2104.12250'"]),
    ("arxiv-id-read-as-number-in-exclude",
     {"content/authors/ada.yaml": "name: Ada\nexclude:\n  - '2301.00001'\n  - 2301.10000\n"}, [],
     ["content/authors/ada.yaml:4:", "'exclude[1]'", "2301.10000", "put it in quotes"]),
    ("arxiv-id-read-as-number-in-record",
     {"content/authors/ada.yaml": "name: Ada\nsources:\n  - records:\n      - title: T\n        year: 2021\n"
                                  "        arxiv_id: 2104.12250\n"}, [],
     ["content/authors/ada.yaml:6:", "arxiv_id", "2104.12250", "put it in quotes"]),
    ("yaml-syntax-error",
     {"content/authors/ada.yaml": "name: Ada\nsources:\n  - records:\n    - title: x\n       year: 2020\n"}, [],
     ["content/authors/ada.yaml:5:", "YAML syntax error", "column 12", "mapping values are not allowed here"]),
    ("yaml-tab",
     {"content/authors/ada.yaml": "name: Ada\n\taffiliation: x\n"}, [],
     ["content/authors/ada.yaml:2:", "YAML syntax error", "column 1", "'\\t'"]),
    ("yaml-unclosed-flow",
     {"content/authors/ada.yaml": "name: Ada\nlinks: {homepage: https://example.org/\n"}, [],
     ["content/authors/ada.yaml:", "YAML syntax error", "column"]),
    ("duplicate-key",
     {"content/authors/ada.yaml": "name: Ada\naffiliation: Engines\nname: Ada L.\n"}, [],
     ["content/authors/ada.yaml:3:", "duplicate key 'name'", "first written on line 1"]),
    ("yaml-impossible-date",   # YAML reads 2024-13-40 as a date: PyYAML raised ValueError, a traceback
     {"content/authors/ada.yaml": "name: Ada\nbio: 2024-13-40\n"}, [],
     ["content/authors/ada.yaml:2:", "'bio': 2024-13-40 reads as a date, but it is not one", "put it in quotes"]),
    ("site-impossible-date",
     {"site.yaml": "title: T\nbase_url: /\ndescription: 2024-02-30\n"}, [],
     ["site.yaml:3:", "'description': 2024-02-30 reads as a date", "put it in quotes ('2024-02-30')"]),
    ("page-impossible-time",
     {"content/pages/x.md": "---\ntitle: X\nupdated: 2024-01-01T25:61:00\n---\nbody\n"}, [],
     ["content/pages/x.md:3:", "'updated': 2024-01-01T25:61:00 reads as a date"]),
    ("yaml-alias",
     {"content/authors/ada.yaml": "name: &n Ada\naliases: [*n]\n"}, [],
     ["content/authors/ada.yaml:2:", "aliases (*name) are not allowed"]),
    ("unknown-category",
     {"content/authors/ada.yaml": "name: Ada\nfilters: {categories: [cs.LGG]}\n"}, [],
     ["content/authors/ada.yaml:2:", "'cs.LGG' is not an arXiv category", "(did you mean 'cs.LG'?)"]),
    ("category-in-lower-case",   # difflib's closest to cs.lg was cs.SY
     {"content/authors/ada.yaml": "name: Ada\nfilters: {categories: [cs.lg]}\n"}, [],
     ["content/authors/ada.yaml:2:", "'cs.lg' is not an arXiv category", "(did you mean 'cs.LG'?)"]),
    ("bad-orcid",
     {"content/authors/ada.yaml": "name: Ada\nlinks: {orcid: 1234}\n"}, [],
     ["content/authors/ada.yaml:2:", "'links.orcid' must be text, found the number 1234"]),
    ("orcid-link-check-digit",   # the same iD under sources: was refused, under links: it linked another person
     {"content/authors/ada.yaml": "name: Ada\nlinks: {orcid: 0000-0002-1825-0098}\n"}, [],
     ["content/authors/ada.yaml:2:", "fails its checksum", "copy the iD from your ORCID record"]),
    ("arxiv-link-elsewhere",
     {"content/authors/ada.yaml": "name: Ada\nlinks: {arxiv: 'https://evil.example/x'}\n"}, [],
     ["content/authors/ada.yaml:2:", "'links.arxiv'", "https://arxiv.org/a/ URL (on arxiv.org)"]),
    ("site-unknown-key",
     {"site.yaml": "title: T\nbase_url: /\ntitel: x\n"}, [],
     ["site.yaml:3:", "unknown key 'titel'", "(did you mean 'title'?)"]),
    ("site-bad-base-url",
     {"site.yaml": "title: T\nbase_url: ftp://example.org/\n"}, [],
     ["site.yaml:2:", "'base_url' must be an http(s) URL", "https://user.github.io/repo/", "'ftp://example.org/'"]),
    ("site-missing-title",
     {"site.yaml": "base_url: /\n"}, [],
     ["site.yaml:1:", "missing required key 'title'"]),
    ("site-output-dir-outside",
     {"site.yaml": "title: T\nbase_url: /\noutput_dir: ../elsewhere\n"}, [],
     ["site.yaml:3:", "'output_dir' must be a new folder inside the site"]),
    ("site-yaml-syntax",
     {"site.yaml": "title: T\nbase_url: [/\n"}, [],
     ["site.yaml:", "YAML syntax error", "column"]),
    ("page-unknown-key",
     {"content/pages/x.md": "---\ntitel: X\n---\nbody\n"}, [],
     ["content/pages/x.md:2:", "unknown key 'titel'", "(did you mean 'title'?)", "missing required key 'title'"]),
    ("page-wrong-type",
     {"content/pages/x.md": "---\ntitle: X\nweight: heavy\n---\nbody\n"}, [],
     ["content/pages/x.md:3:", "'weight' must be a whole number", "found the text 'heavy'"]),
    ("page-no-front-matter",
     {"content/pages/x.md": "# Just Markdown\n"}, [],
     ["content/pages/x.md:1:", "missing front matter", "title: ..."]),
    ("page-front-matter-unclosed",
     {"content/pages/x.md": "---\ntitle: X\nbody without the closing line\n"}, [],
     ["content/pages/x.md:1:", "never closed", "a line of '---'"]),
    ("page-yaml-syntax",
     {"content/pages/x.md": "---\ntitle: X\n  bad: indent\n---\nbody\n"}, [],
     ["content/pages/x.md:3:", "YAML syntax error", "column"]),
    ("page-unsafe-name",
     {"content/pages/Read Me.md": "---\ntitle: X\n---\n"}, [],
     ["content/pages/Read Me.md", "does not make a safe page address"]),
]


@pytest.mark.parametrize("case, files, remove, needles", BAD_CONFIGS, ids=[c[0] for c in BAD_CONFIGS])
def test_bad_configuration_one_clear_report(good_site: Path, case: str, files: dict[str, str],
                                            remove: list[str], needles: list[str]) -> None:
    for rel, text in files.items():
        _write(good_site, rel, text)
    for rel in remove:
        (good_site / rel).unlink()
    err = _fails_cleanly(good_site)
    for needle in needles:
        assert needle in err, f"{needle!r} missing from the report:\n{err}"


@pytest.mark.parametrize("name", ["Bad Name.yaml", "UPPER.yaml", "a_b.yaml", "-lead.yaml", "trail-.yaml",
                                  "caf\u00e9.yaml", "dot.ted.yaml"])
def test_unsafe_slug_is_refused(good_site: Path, name: str) -> None:
    _write(good_site, f"content/authors/{name}", "name: Someone\n")
    err = _fails_cleanly(good_site)
    assert f"content/authors/{name}" in err
    assert f"file name '{name}' does not make a safe page address" in err
    assert "lower-case letters, digits and hyphens" in err


def test_slug_with_trailing_newline_is_refused(good_site: Path) -> None:
    _write(good_site, "content/authors/evil\n.yaml", "name: Evil\n")
    err = _fails_cleanly(good_site)
    assert "does not make a safe page address" in err


def test_all_problems_of_a_file_are_reported_together(good_site: Path) -> None:
    _write(good_site, "content/authors/ada.yaml", (
        "name: [Ada]\n"                            # 1 wrong type
        "affilation: Engines\n"                    # 2 unknown key
        "include: [2104.12250]\n"                  # 3 id read as a number
        "links: {homepage: 'javascript:x()'}\n"    # 4 unsafe URL
        "filters: {since: 'last year'}\n"          # 5 wrong type
    ))
    err = _fails_cleanly(good_site)
    assert err.splitlines()[5] == "build failed: 5 problems in content/authors/ada.yaml (above)"
    for line in (1, 2, 3, 4, 5):
        assert f"content/authors/ada.yaml:{line}:" in err, f"line {line} not reported:\n{err}"


def test_problems_of_several_files_are_reported_together(good_site: Path) -> None:
    _write(good_site, "content/authors/ada.yaml", "name: Ada\naffilation: x\n")
    _write(good_site, "content/authors/bob.yaml", "nme: Bob\n")
    err = _fails_cleanly(good_site)
    assert "content/authors/ada.yaml:2: unknown key 'affilation'" in err
    assert "content/authors/bob.yaml:1: unknown key 'nme' (did you mean 'name'?)" in err
    assert "content/authors/bob.yaml:1: missing required key 'name'" in err


def test_a_bad_base_url_on_the_command_line_is_blamed_on_the_option(good_site: Path) -> None:
    err = _fails_cleanly(good_site, "--base-url", "ftp://x")
    assert err.startswith("error: --base-url must be an http(s) URL") and "site.yaml" not in err.splitlines()[0]


@pytest.mark.parametrize("files, needle", [
    ({"site.yaml": "title: T\nbase_url: /\ntheme: nope\n"}, "site.yaml: 'theme': 'nope' is not a folder of themes/"),
    ({"content/authors/ada.yaml": "name: Ada\ntemplate: nope.html\n"},
     "content/authors/ada.yaml: 'template': 'nope.html' is a template neither of the site"),
], ids=["theme", "template"])
def test_check_finds_the_theme_and_template_errors_build_stops_on(good_site: Path, files: dict[str, str],
                                                                  needle: str) -> None:
    """check said 'no problems' while build failed, half-way, naming a page instead of the file."""
    for rel, text in files.items():
        _write(good_site, rel, text)
    checked = run_cli("-C", good_site, "check")
    assert checked.returncode == 1 and needle in checked.stderr, checked.stderr
    assert needle in _fails_cleanly(good_site)


def test_a_cname_that_is_not_the_base_urls_host_is_a_warning(tmp_path: Path) -> None:
    """Pages would be served at the CNAME while every canonical URL and the sitemap named the base URL."""
    root = make_project(tmp_path, {"site.yaml": "title: T\nbase_url: https://example.github.io/repo/\n"
                                                "cname: profiles.example.org\n",
                                   "content/authors/ada.yaml": "name: Ada\n"})
    said = "'cname' is profiles.example.org but the pages' addresses are under https://example.github.io/repo/"
    for args in (("build",), ("check",)):
        res = run_cli("-C", root, *args)
        assert res.returncode == 0 and said in res.stderr, res.stderr
    fine = run_cli("-C", root, "build", "--base-url", "https://profiles.example.org/")
    assert fine.returncode == 0 and "'cname'" not in fine.stderr


def test_check_strict_says_why_it_fails(tmp_path: Path) -> None:
    """It printed the warnings and exited 1, where build --strict says '--strict is on'."""
    root = make_project(tmp_path, {"content/authors/ada.yaml": "name: Ada\nsources:\n  - arxiv: {query: 'au:\"A\"'}\n"})
    res = run_cli("-C", root, "check", "--strict")
    assert res.returncode == 1 and "1 source not fetched yet" in res.stderr
    assert res.stderr.rstrip().endswith("check failed: 1 warning and --strict is on (above)"), res.stderr


@pytest.mark.parametrize("line", ["paginate: many", "description: [a, b]", "language: 5", "contact: {a: 1}"])
def test_late_site_keys_are_validated(good_site: Path, line: str) -> None:
    _write(good_site, "site.yaml", f"title: T\nbase_url: /\n{line}\n")
    err = _fails_cleanly(good_site)
    assert f"site.yaml:3: '{line.split(':')[0]}' must be" in err


def test_page_description_type_is_validated(good_site: Path) -> None:
    _write(good_site, "content/pages/x.md", "---\ntitle: X\ndescription: [a, b]\n---\nbody\n")
    err = _fails_cleanly(good_site)
    assert "content/pages/x.md:3: 'description' must be text, found a list" in err


def test_a_page_saved_with_a_byte_order_mark_builds(good_site: Path) -> None:
    """An author file with a BOM built; a page with one was told it had no front matter."""
    _write(good_site, "content/pages/x.md", "\ufeff---\ntitle: Join us\n---\nbody\n")
    res = run_cli("-C", good_site, "build")
    assert res.returncode == 0, res.stderr
    assert "<h1>Join us</h1>" in (good_site / "output" / "pages" / "x" / "index.html").read_text("utf-8")


def test_all_problems_of_a_record_are_reported(good_site: Path) -> None:
    _write(good_site, "content/authors/ada.yaml", (
        "name: Ada\n"
        "sources:\n"
        "  - records:\n"
        "      - title: [T]\n"
        "        year: 2020\n"
        "        abstract: [x]\n"
        "        comment: 5\n"
    ))
    err = _fails_cleanly(good_site)
    for line in (4, 6, 7):
        assert f"content/authors/ada.yaml:{line}:" in err, err


def test_lone_arxiv_id_read_as_number_gets_quote_hint(good_site: Path) -> None:
    _write(good_site, "content/authors/ada.yaml", "name: Ada\ninclude: 2104.12250\n")
    err = _fails_cleanly(good_site)
    assert "content/authors/ada.yaml:2:" in err and "quote" in err


def test_yaml_error_points_where_the_quote_opened(good_site: Path) -> None:
    _write(good_site, "content/authors/ada.yaml", 'name: "Ada\naffiliation: Engines\nbio: x\n')
    err = _fails_cleanly(good_site)
    assert "line 1" in err or "ada.yaml:1:" in err, err
    assert "quot" in err, err


def test_missing_site_yaml(tmp_path: Path) -> None:
    res = run_cli("-C", tmp_path, "build")
    assert res.returncode == 1
    assert "no site.yaml here" in res.stderr and "authorsite init" in res.stderr
    assert "Traceback" not in res.stderr


def test_foreign_output_folder_is_not_replaced(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"content/authors/ada.yaml": GOOD_AUTHOR})
    _write(root, "output/precious.txt", "not ours")
    res = run_cli("-C", root, "build")
    assert res.returncode != 0 and "Traceback" not in res.stderr
    assert "output folder holds files that authorsite did not build" in res.stderr
    assert (root / "output/precious.txt").read_text() == "not ours"
    assert sorted(p.name for p in (root / "output").iterdir()) == ["precious.txt"]


def test_concurrent_build_is_refused(good_site: Path) -> None:
    before = tree_state(good_site / "output")
    with holding_lock(lock_path(good_site)):
        res = run_cli("-C", good_site, "build")
    assert res.returncode != 0
    assert "another build is running" in res.stderr and "Traceback" not in res.stderr
    assert tree_state(good_site / "output") == before


# ============================================================================ output atomicity

def test_render_failure_leaves_output_unchanged(good_site: Path) -> None:
    """A template override with an undefined variable fails the second build at render time."""
    _write(good_site, "templates/author.html",
           '{% extends "base.html" %}\n{% block main %}\n<h1>{{ author.name }}</h1>\n{{ no_such_variable }}\n'
           '{% endblock %}\n')
    before = tree_state(good_site / "output")
    res = run_cli("-C", good_site, "build")
    assert res.returncode == 1, res.stderr
    assert "Traceback" not in res.stderr
    assert "no_such_variable" in res.stderr
    assert "authors/ada/index.html" in res.stderr, "the report names the page being built"
    assert re.search(r"templates/author\.html:4\b", res.stderr), f"no template file:line in:\n{res.stderr}"
    assert tree_state(good_site / "output") == before
    assert leftovers(good_site / "output") == []


def test_template_syntax_error_names_file_and_line(good_site: Path) -> None:
    _write(good_site, "templates/page.html", '{% extends "base.html" %}\n{% block main %}\n{% if %}\n{% endblock %}\n')
    before = tree_state(good_site / "output")
    res = run_cli("-C", good_site, "build")
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert "template syntax error" in res.stderr
    assert re.search(r"templates/page\.html:3\b", res.stderr), res.stderr
    assert tree_state(good_site / "output") == before
    assert leftovers(good_site / "output") == []


def test_good_rebuild_replaces_output_and_leaves_no_staging(good_site: Path) -> None:
    _write(good_site, "content/authors/bob.yaml", "name: Bob\n")
    res = run_cli("-q", "-C", good_site, "build")
    assert res.returncode == 0, res.stderr
    assert (good_site / "output/authors/bob/index.html").is_file()
    assert leftovers(good_site / "output") == []


def test_interrupted_build_leftovers_are_repaired(good_site: Path) -> None:
    """A crash between the two renames leaves the old build aside and no output/: the next run repairs it."""
    out = good_site / "output"
    out.rename(old_dir(out))
    staging_dir(out).mkdir()
    res = run_cli("-q", "-C", good_site, "build")
    assert res.returncode == 0, res.stderr
    assert (out / "index.html").is_file()
    assert leftovers(out) == []


def test_output_option_never_replaces_the_site_itself(good_site: Path) -> None:
    """`build --output .` in a Pages repo (which often has a .nojekyll) must not swap the site away."""
    (good_site / ".nojekyll").write_text("")
    (good_site / ".git").mkdir()
    (good_site / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    res = run_cli("-C", good_site, "build", "--output", good_site)
    assert res.returncode != 0 and "Traceback" not in res.stderr
    assert (good_site / "site.yaml").is_file()
    assert (good_site / "content/authors/ada.yaml").is_file()
    assert (good_site / ".git" / "HEAD").is_file()


def test_a_users_own_output_old_folder_is_not_deleted(good_site: Path) -> None:
    """Leftover folders are recognised by authorsite's own names, never a user's backup."""
    for name in ("output.old", "output.staging", "output.bak"):
        (good_site / name).mkdir()
        (good_site / name / "notes.txt").write_text("my backup")
    for args in (["build"], ["clean"]):
        res = run_cli("-q", "-C", good_site, *args)
        assert res.returncode == 0, res.stderr
    for name in ("output.old", "output.staging", "output.bak"):
        assert (good_site / name / "notes.txt").read_text() == "my backup"


# ============================================================================ commands

COMMANDS = ["init", "new-author", "fetch", "build", "serve", "check", "clean"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str) -> None:
    res = run_cli(command, "--help")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith(f"Usage: authorsite {command}"), res.stdout
    assert "--help" in res.stdout


def test_group_help_lists_every_command() -> None:
    res = run_cli("--help")
    assert res.returncode == 0
    listed = set(re.findall(r"^  ([a-z-]+)\s", res.stdout.split("Commands:")[1], re.M))
    assert set(COMMANDS) <= listed


def test_python_m_generator_help() -> None:
    res = subprocess.run([sys.executable, "-m", "generator", "--help"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert "Usage:" in res.stdout and "build" in res.stdout


def test_version() -> None:
    res = run_cli("--version")
    assert res.returncode == 0 and re.search(r"\d+\.\d+", res.stdout)


def test_init_creates_a_site_that_builds(tmp_path: Path) -> None:
    new = tmp_path / "newsite"
    res = run_cli("init", new)
    assert res.returncode == 0, res.stderr
    assert (new / "site.yaml").is_file() and (new / "content/authors/jane-doe.yaml").is_file()
    res = run_cli("-C", new, "build")
    assert res.returncode == 0, res.stderr
    for rel in ("index.html", "authors/jane-doe/index.html", "pages/about/index.html", "404.html"):
        assert (new / "output" / rel).is_file(), rel
    res = run_cli("-C", new, "check")
    assert res.returncode == 0, res.stderr


def test_init_refuses_a_non_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "keep.txt").write_text("mine")
    res = run_cli("init", tmp_path / "x")
    assert res.returncode == 1 and "folder is not empty" in res.stderr and "Traceback" not in res.stderr
    assert sorted(p.name for p in (tmp_path / "x").iterdir()) == ["keep.txt"]


def test_new_author_creates_a_valid_file(tmp_path: Path) -> None:
    root = make_project(tmp_path, {})
    res = run_cli("-C", root, "new-author", "Jane Doe")
    assert res.returncode == 0, res.stderr
    path = root / "content/authors/jane-doe.yaml"
    assert path.is_file()
    config = load_site(root)
    assert [(a.slug, a.name) for a in config.authors] == [("jane-doe", "Jane Doe")]
    assert config.authors[0].sources[0].query == 'au:"Jane Doe"'  # type: ignore[union-attr]
    again = run_cli("-C", root, "new-author", "Jane Doe")
    assert again.returncode == 1 and "exists already" in again.stderr
    res = run_cli("-C", root, "new-author", "José Núñez")
    assert res.returncode == 0 and (root / "content/authors/jose-nunez.yaml").is_file()
    assert {a.slug: a.name for a in load_site(root).authors}["jose-nunez"] == "José Núñez"


def test_new_author_takes_any_name_a_person_has(tmp_path: Path) -> None:
    """Names with an apostrophe were refused ('must be plain text without quotes'); the file now
    quotes what YAML needs quoted. A name that makes no slug, a taken slug, an empty name and a
    folder with no site say what to do."""
    root = make_project(tmp_path / "site", {})
    names = {"sean-o-brien": "Seán O'Brien", "ngugi-wa-thiong-o": "Ngũgĩ wa Thiong'o", "ada-lovelace": "Ada: Lovelace",
             "yes": "yes", "hash-tag": "#hash tag"}
    for name in names.values():
        res = run_cli("-C", root, "new-author", name)
        assert res.returncode == 0, res.stderr
    config = load_site(root)
    assert {a.slug: a.name for a in config.authors} == names
    assert {a.slug: a.sources[0].query for a in config.authors}["sean-o-brien"] == 'au:"Seán O\'Brien"'  # type: ignore[union-attr]
    told = {args: run_cli("-C", root, "new-author", *args) for args in
            [("\U0001f642",), ("yes",), ("",), ('Say "hi"',), ("Con",)]}
    assert all(r.returncode == 1 and "Traceback" not in r.stderr for r in told.values())
    assert "error: the name '\U0001f642' gives no page address in Latin letters\n  hint: choose one with --slug, " \
           "e.g. authorsite new-author \"\U0001f642\" --slug first-last" in told[("\U0001f642",)].stderr
    assert "'con', a name Windows keeps for a device" in told[("Con",)].stderr
    assert "another with --slug, e.g. --slug yes-2" in told[("yes",)].stderr
    assert "the author's name is empty" in told[("",)].stderr
    assert "cannot be searched on arXiv as written" in told[('Say "hi"',)].stderr
    assert run_cli("-C", root, "new-author", "李小龍", "--slug", "li-xiaolong").returncode == 0
    for name, slug in (("李娜", "li-na"), ("김민수", "gim-min-su"), ("Ђорђе", "djordje"),
                       ("Strauß", "strauss")):   # transliterated (anyascii), never '' is not a safe page address
        res = run_cli("-C", root, "new-author", name)
        assert res.returncode == 0 and f"content/authors/{slug}.yaml" in res.stderr, res.stderr
        assert {a.slug: a.name for a in load_site(root).authors}[slug] == name
    (tmp_path / "empty").mkdir()
    outside = run_cli("-C", tmp_path / "empty", "new-author", "X Y")
    assert outside.returncode == 1 and "no site.yaml in" in outside.stderr and "authorsite init" in outside.stderr
    assert not list((tmp_path / "empty").iterdir())


def test_new_author_refuses_unsafe_slug(tmp_path: Path) -> None:
    root = make_project(tmp_path, {})
    res = run_cli("-C", root, "new-author", "Jane Doe", "--slug", "../evil")
    assert res.returncode == 1 and "not a safe page address" in res.stderr
    assert not list(root.rglob("*evil*"))


def test_check_on_built_demo_reports_no_broken_links(demo_copy) -> None:
    res = run_cli("-C", demo_copy.root, "check")
    assert res.returncode == 0, res.stderr
    assert "error:" not in res.stderr


def test_check_reports_a_broken_link(demo_copy) -> None:
    (demo_copy.out / "subjects/cs.AR/index.html").unlink()
    res = run_cli("-C", demo_copy.root, "check")
    assert res.returncode == 1
    assert "authors/bin-cui/index.html: link to" in res.stderr and "subjects/cs.AR/" in res.stderr
    assert "Traceback" not in res.stderr


def test_check_reports_bad_configuration(good_site: Path) -> None:
    _write(good_site, "content/authors/ada.yaml", "name: Ada\naffilation: x\n")
    res = run_cli("-C", good_site, "check")
    assert res.returncode == 1
    assert "content/authors/ada.yaml:2: unknown key 'affilation'" in res.stderr


def test_clean_removes_output(tmp_path: Path) -> None:
    root = copy_demo(tmp_path / "site")
    build(root)
    staging_dir(root / "output").mkdir()
    res = run_cli("-C", root, "clean")
    assert res.returncode == 0, res.stderr
    assert not (root / "output").exists() and not staging_dir(root / "output").exists()
    assert (root / "content/authors/bin-cui.yaml").is_file()
    assert run_cli("-C", root, "clean").returncode == 0  # nothing to clean is fine


def test_clean_refuses_a_foreign_folder(tmp_path: Path) -> None:
    root = make_project(tmp_path, {})
    _write(root, "output/precious.txt", "mine")
    res = run_cli("-C", root, "clean")
    assert res.returncode != 0 and "Traceback" not in res.stderr
    assert (root / "output/precious.txt").read_text() == "mine"
