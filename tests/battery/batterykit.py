"""Helpers of the reliability battery (tests/battery): bounded subprocesses, sites, trees, page scans.

Every hostile run goes through ``run_limited``: the real ``authorsite`` executable in a
subprocess with an address-space cap (``RLIMIT_AS``), optionally a file-size cap
(``RLIMIT_FSIZE`` with ``SIGXFSZ`` ignored, so a write fails with ``EFBIG`` as on a full
disk), a wall-clock timeout, and its peak resident memory read back with ``wait4``.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Callable, Iterable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/, for helpers
from helpers import tree_state  # noqa: E402  (re-exported for the battery tests)

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures"
BIN = Path(sys.executable).parent
AUTHORSITE = str(BIN / "authorsite")

MB = 1024 * 1024
AS_LIMIT = 2048 * MB          # address space: Python and its render processes fit easily; a bomb does not
E5_SECONDS = 30.0             # the battery's bound per hostile run: a hang guard (median 0.26 s, max 2.9 s of 73 runs here: 115x)
E5_RSS_MB = 500.0


# ----------------------------------------------------------------------------- bounded subprocesses

@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    max_rss_mb: float


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update(PYTHONDONTWRITEBYTECODE="1", NO_COLOR="1")
    env.pop("ARXIV_API_URL", None)
    env.update(extra or {})
    return env


def limits(address_space: int | None = AS_LIMIT, file_size: int | None = None,
           umask: int | None = None) -> Callable[[], None]:
    """A ``preexec_fn`` applying resource limits in the child only."""
    def apply() -> None:
        if address_space is not None:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        if file_size is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # EFBIG instead of being killed
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
        if umask is not None:
            os.umask(umask)
    return apply


def run_limited(*args: str | os.PathLike[str], cwd: Path | None = None, timeout: float = E5_SECONDS,
                env: dict[str, str] | None = None, preexec: Callable[[], None] | None = None) -> Run:
    """``authorsite ARGS`` under limits; stdout/stderr through files (no pipe deadlock), peak RSS via wait4."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        proc = subprocess.Popen([AUTHORSITE, *map(str, args)], cwd=cwd, env=cli_env(env), stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, preexec_fn=preexec or limits(), start_new_session=True)
        status = rusage = None
        while True:
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - t0 > timeout:
                os.killpg(proc.pid, signal.SIGKILL)
                os.wait4(proc.pid, 0)
                proc.returncode = -9
                raise AssertionError(f"authorsite {' '.join(map(str, args))} ran over {timeout} s")
            time.sleep(0.01)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        return Run(proc.returncode, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"),
                   seconds, rusage.ru_maxrss / 1024)


def assert_one_clear_report(run: Run, exit_code: int = 1) -> str:
    """REJECT (E1, E2): the exit code, one ``error:`` report, no traceback; returns stderr."""
    assert run.returncode == exit_code, f"exit {run.returncode}, wanted {exit_code}\n{run.stderr[-3000:]}"
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    # one report: an error, or its problems one a line ('error: FILE:LINE: ...') then what became of them
    lines = run.stderr.splitlines()
    errors = [n for n, line in enumerate(lines) if line.startswith("error: ")]
    assert errors and errors == list(range(errors[0], errors[0] + len(errors))), \
        f"expected one report:\n{run.stderr[-3000:]}"
    assert len(errors) == 1 or " failed: " in lines[errors[-1] + 1], f"expected one report:\n{run.stderr[-3000:]}"
    assert len(run.stderr) < 4000, f"the report is {len(run.stderr)} characters long"
    return run.stderr


def assert_bounded(run: Run) -> None:
    """E5: bounded time and memory."""
    assert run.seconds < E5_SECONDS, f"took {run.seconds:.1f} s"
    assert run.max_rss_mb < E5_RSS_MB, f"peak RSS {run.max_rss_mb:.0f} MB"


# ----------------------------------------------------------------------------- trees

def tree_digest(folder: Path) -> str:
    return hashlib.sha256(json.dumps(tree_state(folder), sort_keys=True).encode()).hexdigest()


def leftovers(out_dir: Path) -> list[str]:
    """Staging/old folders next to ``out_dir`` (authorsite's own names only)."""
    return sorted(p.name for p in out_dir.parent.iterdir()
                  if p.name.startswith(out_dir.name + ".authorsite-"))


def stray_temps(cache_dir: Path) -> list[str]:
    return sorted(p.relative_to(cache_dir).as_posix() for p in cache_dir.rglob("*.tmp")) if cache_dir.exists() else []


# ----------------------------------------------------------------------------- sites

GOOD_SITE_YAML = """\
title: Battery site
base_url: https://user.github.io/repo/
contact: tests@example.org
"""

GOOD_AUTHOR = """\
name: Ada Lovelace
affiliation: Analytical Engines Ltd
links: {homepage: "https://ada.example.org/", orcid: "0000-0002-1825-0097"}
bio: Wrote *the* notes.
sources:
  - arxiv: {query: 'au:"Ada Lovelace"'}
  - records:
      - title: Notes on the engine
        year: 2020
        subjects: [cs.LG]
        abstract: Typed in by hand.
"""

GOOD_PAGE = "---\ntitle: About\n---\nHello.\n"


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content), encoding="utf-8")


def record(i: int, *, prefix: str = "2401", authors: Iterable[str] = ("Ada Lovelace",), year: int = 2024,
           subject: str = "cs.LG", title: str | None = None, abstract: str | None = None):  # noqa: ANN201
    from generator.core.model import Person, Record

    arxiv_id = f"{prefix}.{10000 + i:05d}"
    return Record(key=f"arxiv:{arxiv_id}", title=title or f"Paper {prefix}-{i} on $O(n^{2})$ methods",
                  year=year, arxiv_id=arxiv_id, version=1, authors=tuple(Person(a) for a in authors),
                  abstract=abstract or f"We study problem {i}. " * 5,
                  published=f"{year}-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:00Z",
                  updated=f"{year}-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:00Z",
                  primary_subject=subject, subjects=(subject,), doi=f"10.1234/x.{prefix}.{i}" if i % 3 == 0 else None,
                  comment="12 pages" if i % 2 else None)


def seed_cache(root: Path, slug: str, records: list, query: str) -> Path:
    """Write the cache file a previous good fetch would have left for ``query``."""
    from generator.store import cache
    from generator.config import ArxivSource

    source = ArxivSource(query=query)
    path = cache.cache_file(root / "content" / "cache", slug, source)
    assert path is not None
    cache.write_entry(path, cache.CacheEntry(cache.source_description(source), "2026-01-01T00:00:00Z",
                                             tuple(records)))
    return path


def make_good_site(root: Path) -> Path:
    """A small site with an arXiv cache file, a typed-in record and a page (not built)."""
    write_files(root, {"site.yaml": GOOD_SITE_YAML, "content/authors/ada.yaml": GOOD_AUTHOR,
                       "content/pages/about.md": GOOD_PAGE})
    seed_cache(root, "ada", [record(i) for i in range(3)], 'au:"Ada Lovelace"')
    return root


SUBJECTS = ("cs.LG", "cs.DB", "cs.CV", "cs.CL", "math.AG", "physics.optics", "q-bio.NC", "stat.ML")


def make_synthetic_site(root: Path, n_authors: int = 100, per_author: int = 12) -> Path:
    """``n_authors`` author files, each with an arXiv source whose cache file holds ``per_author``
    records (some shared with a co-author, so pages cross-link) and one typed-in record."""
    write_files(root, {"site.yaml": "title: Synthetic site\nbase_url: /synthetic/\ncontact: t@example.org\n"})
    for n in range(n_authors):
        slug, name = f"author-{n:03d}", f"Author {n:03d} Example"
        coauthor = f"Author {(n + 1) % n_authors:03d} Example"
        write_files(root, {f"content/authors/{slug}.yaml": f"""\
            name: {name}
            affiliation: University {n % 7}
            bio: Works on topic {n}.
            sources:
              - arxiv: {{query: 'au:"{name}"'}}
              - records:
                  - {{title: 'Typed-in note {n}', year: {2000 + n % 25}, subjects: [{SUBJECTS[n % 8]}]}}
            """})
        recs = [record(n * per_author + i, prefix=f"{24 + n % 2:02d}{1 + i % 12:02d}",
                       authors=(name, coauthor) if i % 4 == 0 else (name,), year=2015 + i % 11,
                       subject=SUBJECTS[(n + i) % 8]) for i in range(per_author)]
        seed_cache(root, slug, recs, f'au:"{name}"')
    return root


# ----------------------------------------------------------------------------- pages

class _Doc(HTMLParser):
    """What the F checks need from one page: structure, attributes, URLs, scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.counts: dict[str, int] = {}
        self.urls: list[tuple[str, str, str]] = []           # (tag, attribute, value)
        self.events: list[str] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._script: tuple[dict[str, str | None], list[str]] | None = None
        self.text: list[str] = []
        self.in_svg = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "svg":
            self.in_svg += 1
        if not (self.in_svg and tag == "title"):   # an SVG's <title> is its accessible name
            self.counts[tag] = self.counts.get(tag, 0) + 1
        a = dict(attrs)
        for name, value in attrs:
            if name.startswith("on"):
                self.events.append(f"<{tag} {name}={value!r}>")
            if name in ("href", "src", "action", "formaction", "poster", "srcset", "xlink:href") and value is not None:
                self.urls.append((tag, name, value))
        if tag == "script":
            self._script = (a, [])

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag == "script":
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg" and self.in_svg:
            self.in_svg -= 1
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script[0], "".join(self._script[1])))
            self._script = None

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script[1].append(data)
        else:
            self.text.append(data)


def parse_page(source: str) -> _Doc:
    d = _Doc()
    d.feed(source)
    d.close()
    return d


OUR_SCRIPTS = ("static/filter.js", "static/lab-filter.js", "static/records.js", "static/search.js", "static/theme.js", "static/theme-init.js")


def page_problems(source: str, base_path: str, allowed_prefixes: tuple[str, ...]) -> list[str]:
    """F5 for one page: structure, no event handlers, known scripts only, every URL allowed."""
    problems: list[str] = []
    doc = parse_page(source)
    if not source.lstrip().lower().startswith("<!doctype html>"):
        problems.append("no <!DOCTYPE html>")
    for tag in ("html", "head", "body", "title"):
        if doc.counts.get(tag) != 1:
            problems.append(f"<{tag}> appears {doc.counts.get(tag, 0)} times")
    if not source.rstrip().endswith("</html>"):
        problems.append("the page does not end with </html> (truncated?)")
    problems += [f"event handler {e}" for e in doc.events]
    for attrs, body in doc.scripts:
        src = attrs.get("src")
        if src is not None:
            if not any(src == base_path + s for s in OUR_SCRIPTS) or body.strip():
                problems.append(f"<script src={src!r}> is not one of our own scripts")
        elif attrs.get("type") == "application/ld+json":
            try:
                json.loads(body)
            except ValueError as exc:
                problems.append(f"JSON-LD is not valid JSON: {exc}")
        else:
            problems.append(f"inline <script> {body[:80]!r}")
    for tag, attr, value in doc.urls:
        if not url_allowed(value, base_path, allowed_prefixes):
            problems.append(f"<{tag} {attr}={value!r}> is not relative, under {base_path}, or allow-listed")
    return problems


def url_allowed(value: str, base_path: str, allowed_prefixes: tuple[str, ...]) -> bool:
    if value.startswith("#"):
        return True
    if value.startswith("//") or value.startswith("\\"):
        return False
    if value.startswith("/"):
        return value.startswith(base_path)
    if ":" in value.split("/", 1)[0] or value.lower().startswith(("javascript", "data", "vbscript")):
        # the sources' own record pages, built by generator.core.ids from checked ids (issue 14)
        return value.startswith(("https://arxiv.org/", "https://doi.org/", "https://dblp.org/rec/",
                                 "https://openalex.org/", "https://orcid.org/", *allowed_prefixes))
    return True   # relative


def site_files(out: Path) -> list[Path]:
    return sorted(p for p in out.rglob("*") if not p.is_dir())


# ----------------------------------------------------------------------------- a hostile site

XSS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "<svg onload=alert(3)><circle/></svg>",
    "<iframe src=javascript:alert(4)></iframe>",
    "javascript:alert(5)",
    "{{ 7*7 }} {% include 'base.html' %}",
    "</title><script>alert(6)</script>",
    "</script><script>alert(7)</script>",
    "<a href=\"&#106;avascript:alert(8)\">x</a>",
    "<!--><img src=x onerror=alert(9)>-->",
    "\u202eevil\u202c \u200b zero-width",
    "$\\href{javascript:alert(10)}{x}$ \\url{javascript:alert(11)}",
    "[md](javascript:alert(12)) **bold** <b onmouseover=alert(13)>b</b>",
]
PAYLOAD = " ".join(XSS)


def _yq(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def make_hostile_site(root: Path, base_url: str = "https://user.github.io/repo/") -> Path:
    """Every text field of site, author, typed-in record, cached (fetched) record and page holds XSS."""
    from generator.core.model import Person, Record

    write_files(root, {
        "site.yaml": f"title: {_yq('Site ' + XSS[0] + XSS[6])}\ndescription: {_yq(PAYLOAD)}\nbase_url: {base_url}\n",
        "content/authors/eve.yaml": f"""\
            name: {_yq('Eve ' + XSS[1])}
            affiliation: {_yq(PAYLOAD)}
            aliases: [{_yq(XSS[2])}]
            links: {{homepage: "https://eve.example.org/?a=1&b=2", email: "eve@example.org"}}
            bio: |
              Bio {' '.join(XSS)}
            sources:
              - arxiv: {{query: 'au:"Eve"'}}
              - records:
                  - title: {_yq('Typed ' + PAYLOAD)}
                    year: 2023
                    subjects: [cs.CR]
                    authors: [{_yq('Eve ' + XSS[1])}, {_yq(XSS[3])}]
                    abstract: {_yq(PAYLOAD)}
                    comment: {_yq(PAYLOAD)}
                    journal_ref: {_yq(PAYLOAD)}
                    source: {_yq(XSS[0])}
                    url: 'https://eve.example.org/paper?x=1&y=2'
            """,
        "content/authors/mallory.yaml": f"name: {_yq('Mallory ' + XSS[7])}\nbio: {_yq(XSS[9])}\n",
        "content/pages/evil.md": f"---\ntitle: {_yq('Page ' + XSS[0])}\ndescription: {_yq(PAYLOAD)}\n---\n"
                                 + "\n\n".join(XSS) + "\n",
    })
    people = (Person("Eve " + XSS[1], (PAYLOAD,)), Person("Mallory " + XSS[7]), Person(XSS[3]))
    recs = [Record(key=f"arxiv:2401.1000{i}", title=f"Fetched {i} {PAYLOAD}", year=2024, arxiv_id=f"2401.1000{i}",
                   version=2, authors=people, abstract=PAYLOAD, published="2024-01-0{}T00:00:00Z".format(i + 1),
                   updated="2024-01-0{}T00:00:00Z".format(i + 1), primary_subject="cs.CR", subjects=("cs.CR", "cs.LG"),
                   other_terms=(XSS[0], "../../etc"), doi="10.1234/x<script>" if i == 0 else None,
                   journal_ref=PAYLOAD, comment=PAYLOAD) for i in range(3)]
    seed_cache(root, "eve", recs, 'au:"Eve"')
    return root


def allowed_prefixes(root: Path, base_url: str | None = None) -> tuple[str, ...]:
    """URLs a page may link to besides arXiv and doi.org: the site's own base URL and the
    URLs written in author files (links, typed-in records), already validated by config."""
    from generator.config import RecordsSource, load_site

    config = load_site(root, base_url=base_url)
    out = {config.base_url}
    if config.repository:   # the "Not mine?" links to the site's issue form (generator.assemble.matching)
        out.add(config.repository.rstrip("/") + "/issues/new?")
    for a in config.authors:
        out.update(link.url for link in a.links)
        for s in a.sources:
            if isinstance(s, RecordsSource):
                out.update(r.url for r in s.records if r.url)
                out.update(url for r in s.records for _, url in r.links)   # code, slides ... (issue 13)
        out.update(url for _, links in a.extra_links for _, url in links)
    return tuple(sorted(u for u in out if u.startswith(("https://", "http://", "mailto:"))))
