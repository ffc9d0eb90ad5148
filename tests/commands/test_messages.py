"""Messages that never read oddly (issue 30, point 7): the demo builds without a warning, hints
come from arXiv's own codes, every problem of the site is reported at once and sorted, in one
format for build and check, and an offline fetch says what happened. Through the real CLI."""

from __future__ import annotations

import os
import re
import socket
import subprocess
from pathlib import Path

from helpers import cli_command, copy_demo, make_project, run_cli

from generator.fetch.run import FetchReport, SourceResult, summary_table
from generator.core.taxonomy import load_taxonomy


def test_a_fresh_copy_of_the_demo_builds_without_a_warning(tmp_path: Path) -> None:
    """Its arXiv queries are never fetched (no committed cache): a build says nothing of it; check
    lists them once, by file and line, as one warning."""
    root = copy_demo(tmp_path / "demo")
    built = run_cli("-C", root, "build", timeout=300)
    assert built.returncode == 0, built.stderr
    assert "warning" not in built.stderr.lower() and "not fetched" not in built.stderr, built.stderr
    checked = run_cli("-C", root, "check", timeout=300)
    assert checked.returncode == 0, checked.stderr
    warnings = [line for line in checked.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == ["warning: 2 sources not fetched yet; run 'authorsite fetch' (until then the site is built "
                        "from the other sources):"], checked.stderr
    listed = checked.stderr.split(warnings[0], 1)[1].splitlines()[1:3]
    assert listed == ["  content/authors/bin-cui.yaml:12: arXiv query 'au:\"Bin Cui\"'",
                      "  content/authors/bingning-wang.yaml:9: arXiv query 'au:\"Bingning Wang\"'"], checked.stderr
    assert checked.stderr.count("bin-cui.yaml") == 1 and "check: no problems, 1 warning" in checked.stderr


def test_category_hints_come_from_arxivs_own_codes(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"content/authors/ada.yaml": (
        "name: Ada\n"
        "sources:\n"
        "  - arxiv: {query: 'au:\"Ada\"', categories: [cs.ML, physics, stat.LG, eess.NA, cs.LGG]}\n")})
    res = run_cli("-C", root, "check")
    assert res.returncode == 1
    where = "error: content/authors/ada.yaml:3: 'sources[0].arxiv.categories':"
    assert f"{where} 'cs.ML' is not an arXiv category (did you mean 'stat.ML' or 'cs.LG'?)" in res.stderr, res.stderr
    assert f"{where} 'stat.LG' is not an arXiv category (did you mean 'cs.LG' or 'stat.ML'?)" in res.stderr
    assert f"{where} 'eess.NA' is not an arXiv category (did you mean 'math.NA'?)" in res.stderr  # cs.NA's twin
    assert f"{where} 'cs.LGG' is not an arXiv category (did you mean 'cs.LG'?)" in res.stderr
    physics = next(line for line in res.stderr.splitlines() if "'physics' is not" in line)
    assert "'physics' is an archive, not a category: name one or more of its 22 categories (physics.acc-ph" in physics
    assert "https://arxiv.org/archive/physics" in physics and "physics.ed-ph" not in physics
    assert "cs.PL" not in res.stderr


def test_every_alias_of_arxiv_is_accepted_as_its_canonical_code() -> None:
    tax = load_taxonomy()
    aliases = {"cs.NA": "math.NA", "cs.SY": "eess.SY", "math.IT": "cs.IT", "math.MP": "math-ph",
               "q-fin.EC": "econ.GN", "stat.TH": "math.ST"}
    assert {code: tax.canonical(code) for code in aliases} == aliases


SITE_TYPO = "title: T\nbase_url: /\npaginat: 10\n"            # line 3
ADA_TYPOS = "name: Ada\nafiliation: Engines\nboi: x\n"        # lines 2 and 3
BOB_TYPO = "nme: Bob\n"                                        # line 1 (and 'name' missing)


def _problem_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error: ")]


def test_site_yaml_and_author_file_problems_are_reported_in_one_run_sorted(tmp_path: Path) -> None:
    """A site.yaml typo stopped before any author file was read; problems of a file came in the
    order of the checks, not of the lines."""
    root = make_project(tmp_path, {"site.yaml": SITE_TYPO, "content/authors/ada.yaml": ADA_TYPOS,
                                   "content/authors/bob.yaml": BOB_TYPO,
                                   "content/pages/about.md": "---\ntitel: About\n---\nx\n"})
    for command in ("build", "check"):
        res = run_cli("-C", root, command)
        assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
        where = [re.match(r"error: ([^:]+):(\d+): ", line) for line in _problem_lines(res.stderr)]
        assert all(where), res.stderr
        found = [(m.group(1), int(m.group(2))) for m in where if m]
        assert found == sorted(found), res.stderr
        assert {path for path, _ in found} == {"site.yaml", "content/authors/ada.yaml", "content/authors/bob.yaml",
                                               "content/pages/about.md"}, res.stderr
        assert ("content/authors/ada.yaml", 2) in found and ("content/authors/ada.yaml", 3) in found
        assert ("site.yaml", 3) in found
        assert res.stderr.splitlines()[len(found)].startswith(f"{command} failed: {len(found)} problems")


def test_build_and_check_print_the_same_text_for_the_same_problem(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"site.yaml": SITE_TYPO, "content/authors/ada.yaml": ADA_TYPOS,
                                   "content/authors/bob.yaml": BOB_TYPO})
    built, checked = run_cli("-C", root, "build"), run_cli("-C", root, "check")
    assert _problem_lines(built.stderr) == _problem_lines(checked.stderr) != [], (built.stderr, checked.stderr)
    assert len(_problem_lines(built.stderr)) == 5
    one = make_project(tmp_path / "one", {"content/authors/ada.yaml": "name: Ada\nboi: x\n"})
    built, checked = run_cli("-C", one, "build"), run_cli("-C", one, "check")
    assert _problem_lines(built.stderr) == _problem_lines(checked.stderr) == [
        "error: content/authors/ada.yaml:2: unknown key 'boi' (did you mean 'bio'?); allowed keys: name, name_native, "
        "name_native_lang, affiliation, role, group, member, photo, links, bio, aliases, sources, pinned, extra_links, "
        "include, exclude, filters, separate, template"]


def _closed_port() -> int:
    """A port of 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _offline_site(tmp_path: Path, api: str, retries: int) -> Path:
    return make_project(tmp_path, {
        "site.yaml": f"title: T\nbase_url: /\ncontact: tests@example.org\nfetch: {{arxiv_api: '{api}', "
                     f"delay_seconds: 0.05, retries: {retries}, timeout_seconds: 2}}\n",
        "content/authors/ada.yaml": "name: Ada\nsources:\n  - arxiv: {query: 'au:\"Ada\"'}\n",
        "content/authors/bob.yaml": "name: Bob\nsources:\n  - arxiv: {query: 'au:\"Bob\"'}\n"})


def _attempts_agree(stderr: str) -> None:
    """Under each source's "fetching" line, every 'attempt N of M' counts up to M, and its error
    says 'after M attempts'; each URL is printed once (in the error: the retries do not repeat it)."""
    blocks = re.split(r"(?m)^\S+: fetching ", stderr)[1:]
    assert blocks, stderr
    for block in blocks:
        announced = [(int(n), int(of)) for n, of in re.findall(r"(?m)^  .*\(attempt (\d+) of (\d+)\)$", block)]
        gave_up = [int(n) for n in re.findall(r"could not be fetched: \S+: .* after (\d+) attempts;", block)]
        after = gave_up[0] if gave_up else 1   # none: not tried again ("earlier in this run")
        assert len(gave_up) <= 1 and [n for n, _ in announced] == list(range(2, after + 1)), block
        assert {of for _, of in announced} == ({after} if gave_up else set()), block
    urls = re.findall(r"https?://[^\s:]+:?\d*/\S*", stderr)
    assert urls and all(stderr.count(url) == 1 for url in urls), stderr


def test_an_offline_fetch_says_what_happened(tmp_path: Path) -> None:
    """A closed port: nothing was cached before, so nothing was 'kept'; the counts of tries agree;
    the status column names the reason in whole words."""
    root = _offline_site(tmp_path, f"http://127.0.0.1:{_closed_port()}/api/query", retries=2)
    res = run_cli("-C", root, "fetch", timeout=120)
    assert res.returncode == 3, res.stderr
    assert "kept no cache" not in res.stderr and "cache kept" not in res.stderr, res.stderr
    assert res.stderr.count("nothing was cached from it before, so the build uses the author's other sources") == 2
    _attempts_agree(res.stderr)
    rows = [line for line in res.stderr.splitlines() if line.startswith(("ada ", "bob "))]
    assert len(rows) == 2 and all(row.endswith("FAILED, nothing cached yet: connection failed") for row in rows), \
        res.stderr


def test_an_unresolved_host_counts_its_two_tries_alike(tmp_path: Path) -> None:
    """It said 'attempt 2 of 5', then gave up 'after 2 attempts' (a name that does not resolve is
    tried twice)."""
    root = _offline_site(tmp_path, "http://arxiv-api.invalid/api/query", retries=4)   # RFC 6761
    res = run_cli("-C", root, "fetch", timeout=120)
    assert res.returncode == 3, res.stderr
    assert "(attempt 2 of 2)" in res.stderr and "of 5)" not in res.stderr, res.stderr
    _attempts_agree(res.stderr)
    assert "kept no cache" not in res.stderr


def _listed_commands(help_text: str) -> dict[str, str]:
    """The Commands section of ``authorsite --help``: name -> summary (wrapped lines joined)."""
    found: dict[str, str] = {}
    name = ""
    for line in help_text.split("Commands:", 1)[1].splitlines():
        m = re.match(r"  ([a-z-]+)\s+(.*)", line)
        if m:
            name = m.group(1)
            found[name] = m.group(2)
        elif line.strip() and name:
            found[name] += " " + line.strip()
    return found


def test_every_command_summary_is_a_whole_sentence() -> None:
    """Summaries were cut mid-sentence ('Build the site from the configuration and the committed...'),
    and fetch --help pointed to a README that a pip-installed user does not have."""
    for columns in ("80", "50"):
        res = subprocess.run([*cli_command(), "--help"], capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, COLUMNS=columns))
        assert res.returncode == 0, res.stderr
        listed = _listed_commands(res.stdout)
        assert {"build", "check", "clean", "fetch", "init", "new-author", "review", "serve"} <= set(listed)
        for name, summary in listed.items():
            assert summary[0].isupper() and summary.endswith(".") and "..." not in summary, (name, summary)
    for name in listed:
        res = run_cli(name, "--help")
        assert res.returncode == 0 and "README" not in res.stdout and "..." not in res.stdout, res.stdout


def test_a_build_leaves_nothing_beside_output_but_the_tool_folder(tmp_path: Path) -> None:
    """`.authorsite-build.lock` and `.output.authorsite-spare/` stayed in the site folder after a
    build; they are in `.authorsite/` now, and an earlier version's spare is removed."""
    root = copy_demo(tmp_path / "demo")
    before = {p.name for p in root.iterdir()}
    (root / ".output.authorsite-spare" / "authors").mkdir(parents=True)   # as an earlier version left it
    (root / ".authorsite-build.lock").write_text("")
    for edit in ("first", "second"):   # a first build, then a rebuild that keeps the build before as the spare
        (root / "content/pages/about.md").write_text(f"---\ntitle: About\n---\n{edit}\n")
        res = run_cli("-C", root, "build")
        assert res.returncode == 0, res.stderr
    assert (root / ".authorsite/build.lock").is_file() and (root / ".authorsite/output-spare").is_dir()
    assert {p.name for p in root.iterdir()} - before == {"output", ".authorsite", ".authorsite-build.lock"}
    cleaned = run_cli("-C", root, "clean")
    assert cleaned.returncode == 0, cleaned.stderr
    assert {p.name for p in root.iterdir()} - before == {".authorsite"}
    assert not (root / ".authorsite/output-spare").exists()


def test_the_fetch_table_cuts_between_words() -> None:
    """The status column was cut mid-word ('Connection ref…'); a long URL is cut after a '/'."""
    reason = "the server answered with something rather long about why it cannot serve this request today"
    label = "feed https://example.org/publications/of/the/lab/in/a/rather/deep/folder.atom"
    table = summary_table(FetchReport((SourceResult("ada", label, "x.json", 1, error=reason),)))
    status = table[1].split("FAILED, cache kept: ", 1)[1]
    assert status.endswith("…") and reason.startswith(status[:-1]) and reason[len(status) - 1] == " ", status
    shown = re.search(r"feed \S+", table[1]).group(0)   # type: ignore[union-attr]
    assert shown.endswith("/…") and label.startswith(shown[:-1]), shown
