"""Shared test helpers: inline projects, real builds, the CLI as a subprocess, HTML fragments.

Nothing here replaces our own code: builds are real (``generator.build.build`` or the
``authorsite`` executable in a subprocess), pages are parsed with the standard library's
``html.parser`` and compared against what ``generator.core.latex`` produces.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Iterator
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
SEEDS = TESTS / "fixtures" / "seeds"
GOLDEN = TESTS / "golden"
# Not resolved: in a virtualenv sys.executable is a symlink in .venv/bin, and that
# directory (not the base interpreter's) holds the console script.
BIN = Path(sys.executable).parent

# The wheels of authorsite's dependencies, downloaded by `make test` (the Makefile's
# wheelhouse): the local package index that installs authorsite with no network.
WHEELHOUSE = Path(sys.prefix) / "wheelhouse"

DEFAULT_SITE_YAML = """\
title: Test site
base_url: /
"""


# ----------------------------------------------------------------------------- offline installs


def offline(cmd: list[str]) -> tuple[list[str], dict[str, str]]:
    """``cmd`` with no network: in a new network namespace if allowed, else with dead proxies.
    pip sees only the local index (WHEELHOUSE), as a machine with no network would."""
    assert (WHEELHOUSE / ".made").is_file(), f"no {WHEELHOUSE}: run make test, which downloads it"
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(WHEELHOUSE), GIT_ALLOW_PROTOCOL="file",
               PYTHONDONTWRITEBYTECODE="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    for name in ("VIRTUAL_ENV", "PIP_CONSTRAINT", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"):
        env.pop(name, None)
    if subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-rn", *cmd], env
    dead = "http://127.0.0.1:9"
    env.update(http_proxy=dead, https_proxy=dead, HTTP_PROXY=dead, HTTPS_PROXY=dead, ALL_PROXY=dead, no_proxy="")
    return cmd, env


def copy_working_tree(dest: Path) -> Path:
    """A copy of what a commit of the working tree would hold (tracked and new files, not the
    ignored ones: no .venv, output/ or build/): what a push publishes, or a release builds."""
    names = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, text=True, check=True, timeout=60).stdout.split("\0")
    for name in filter(None, names):
        if (REPO / name).is_file():   # a tracked file deleted in the working tree is left out
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, dest / name, follow_symlinks=False)
    return dest


# ----------------------------------------------------------------------------- projects

def make_project(tmp_path: Path, files: dict[str, str]) -> Path:
    """Write a small inline site under ``tmp_path/site`` and return its root.

    ``files`` maps paths relative to the site root to their text (dedented, so the
    YAML can be indented with the test code). A minimal ``site.yaml`` is added when
    the mapping has none.
    """
    root = tmp_path / "site"
    root.mkdir(parents=True, exist_ok=True)
    files = dict(files)
    files.setdefault("site.yaml", DEFAULT_SITE_YAML)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def generated_corpus(top: Path, authors: int, records: int) -> Path:
    """A site of ``authors`` x ``records`` made by the benchmark's corpus generator and converter
    (bench/) under ``top``; returns the site's folder."""
    subprocess.run([sys.executable, str(REPO / "bench" / "shared" / "make_corpus.py"), "--authors", str(authors),
                    "--records-per-author", str(records), "--out", str(top / "neutral")], check=True,
                   capture_output=True)
    subprocess.run([sys.executable, str(REPO / "bench" / "convert.py"), "--corpus", str(top / "neutral"),
                    "--out", str(top / "site")], check=True, capture_output=True, cwd=REPO)
    return top / "site"


def copy_demo(dest: Path) -> Path:
    """Copy the repository's demo site (site.yaml and content/) into ``dest``; return it."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(REPO / "site.yaml", dest / "site.yaml")
    shutil.copytree(REPO / "content", dest / "content")
    return dest


def fresh_copy(template: Path, dest: Path) -> Path:
    """A private copy of a site built once per module (a fixture's template)."""
    shutil.copytree(template, dest, symlinks=True)
    return dest


@contextlib.contextmanager
def holding_lock(path: Path) -> Iterator[None]:
    """Hold the exclusive flock on ``path`` (a build's or fetch's lock file), as a running one does."""
    path.parent.mkdir(exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)


def build(root: Path, **kwargs: object) -> Path:
    """A real in-process build; returns the output folder."""
    from generator.build import build as run_build

    return run_build(root, **kwargs).out_dir  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- the CLI

def cli_command() -> list[str]:
    """The installed console script next to the running interpreter, else ``python -m generator``."""
    script = BIN / "authorsite"
    return [str(script)] if script.exists() else [sys.executable, "-m", "generator"]


def run_cli(*args: str | os.PathLike[str], cwd: Path | None = None,
            timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", NO_COLOR="1")
    return subprocess.run([*cli_command(), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


# ----------------------------------------------------------------------------- trees

def tree_state(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder``: relative path -> sha256 (files) or 'dir'.

    Modes are included, so a rewrite that changes permissions counts as a change.
    """
    state: dict[str, str] = {}
    if not folder.exists():
        return state
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        mode = oct(p.lstat().st_mode & 0o777)
        if p.is_symlink():
            state[rel] = f"symlink:{os.readlink(p)}"
        elif p.is_dir():
            state[rel] = f"dir:{mode}"
        else:
            state[rel] = hashlib.sha256(p.read_bytes()).hexdigest() + f":{mode}"
    return state


def leftovers(out_dir: Path) -> list[str]:
    """Staging or old folders a build left next to ``out_dir``."""
    return sorted(p.name for p in out_dir.parent.iterdir()
                  if p.name != out_dir.name and p.name.startswith(out_dir.name + "."))


# ----------------------------------------------------------------------------- seeds

@dataclass(frozen=True)
class SeedRecord:
    year: int
    title: str
    abstract: str
    subject: str


@dataclass(frozen=True)
class Seed:
    path: Path
    name: str
    records: tuple[SeedRecord, ...]


_SEED_YEAR = re.compile(r"^arXiv(\d{4})$")
_SEED_SUBJECT = re.compile(r"^(\S+)↗$")
_SEED_NAME = re.compile(r"^Publications and source records attributed to (.+)\.$")


def parse_seed(path: Path) -> Seed:
    """A seed page: a line ``arXiv<year>``, the title line, the abstract paragraph, ``<code>↗``."""
    lines = [ln.strip() for ln in path.read_text("utf-8").splitlines()]
    name = next(m.group(1) for ln in lines if (m := _SEED_NAME.match(ln)))
    records = []
    i = 0
    while i < len(lines):
        m = _SEED_YEAR.match(lines[i])
        if not m:
            i += 1
            continue
        rest = [ln for ln in lines[i + 1:i + 12] if ln]
        title, abstract, subject_line = rest[0], rest[1], rest[2]
        sm = _SEED_SUBJECT.match(subject_line)
        assert sm, f"{path.name}: no '<code>↗' line after {title!r}"
        records.append(SeedRecord(int(m.group(1)), title, abstract, sm.group(1)))
        i += 1
    return Seed(path, name, tuple(records))


def seeds() -> list[Seed]:
    return [parse_seed(p) for p in sorted(SEEDS.glob("*.txt"))]


def norm_space(text: str) -> str:
    """What config does to typed-in titles and abstracts: whitespace runs become one space."""
    return " ".join(text.split())


# ----------------------------------------------------------------------------- HTML

VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())


@dataclass(eq=False)
class Node:
    tag: str
    attrs: dict[str, str | None]
    start: int                  # offset of '<' of the start tag in the source
    inner_start: int            # offset just after the start tag
    inner_end: int | None = None
    children: list["Node | str"] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def iter(self) -> Iterator["Node"]:
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list["Node"]:
        return [n for n in self.iter() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes)]

    def find(self, tag: str | None = None, cls: str | None = None) -> "Node":
        found = self.find_all(tag, cls)
        assert found, f"no <{tag or '*'} class={cls!r}> inside <{self.tag} {self.attrs}>"
        return found[0]

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def inner_html(self, source: str) -> str:
        assert self.inner_end is not None, f"<{self.tag}> is not closed"
        return source[self.inner_start:self.inner_end]


class _TreeBuilder(HTMLParser):
    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.source = source
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\n", source)]
        self.root = Node("#document", {}, 0, 0, len(source))
        self.stack = [self.root]

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.line_starts[line - 1] + col

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self._offset()
        raw = self.get_starttag_text() or ""
        node = Node(tag, dict(attrs), start, start + len(raw))
        self.stack[-1].children.append(node)
        if tag in VOID:
            node.inner_end = node.inner_start
        else:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self._offset()
        raw = self.get_starttag_text() or ""
        node = Node(tag, dict(attrs), start, start + len(raw), start + len(raw))
        self.stack[-1].children.append(node)

    def handle_endtag(self, tag: str) -> None:
        end = self._offset()
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                for open_node in self.stack[i:]:  # elements closed implicitly end here too
                    open_node.inner_end = end
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse_html(source: str) -> Node:
    b = _TreeBuilder(source)
    b.feed(source)
    b.close()
    return b.root


@dataclass(frozen=True)
class PageRecord:
    """One ``li.record`` of a built page, as fragments of the page's own HTML."""

    year: str
    title_html: str
    title_href: str
    abstract_html: str | None
    chips: tuple[str, ...]
    source_href: str


def page_records(source: str) -> list[PageRecord]:
    """Every ``li.record`` of a page; its year is its own (a pinned copy says it) or its section's
    heading (a record under its year's heading does not repeat it, issue 30), or its badge's (a
    published record's badge names its venue and year, issue 45)."""
    doc = parse_html(source)
    out = []
    section_year = {id(li): section.find("h2").text().strip()
                    for section in doc.find_all("section", "year") for li in section.find_all("li", "record")}
    for li in doc.find_all("li", "record"):
        # a published record's badge ends with its year ("PVLDB 2025", issue 45)
        years = li.find_all("span", "year") or [b for b in li.find_all("span", "badge") if re.search(r" \d{4}$", b.text())]
        title = li.find("h3", "record-title")
        title_a = title.find_all("a")   # none for a record without id, URL or DOI (issue 13)
        sources = li.find_all("a", "source")
        abstracts = li.find_all("details", "abstract")
        out.append(PageRecord(
            year=years[0].text().strip()[-4:] if years else section_year[id(li)],
            title_html=(title_a[0] if title_a else title).inner_html(source),
            title_href=title_a[0].attrs.get("href") or "" if title_a else "",
            abstract_html=abstracts[0].find("p").inner_html(source) if abstracts else None,
            chips=tuple(a.text().strip() for a in li.find_all("a", "chip")),
            source_href=(links[0].attrs.get("href") or "") if (links := sources or title_a) else "",  # brief: the title
        ))
    return out


# ----------------------------------------------------------------------------- safety scan

URL_ATTRS = frozenset({"href", "src", "action", "formaction", "srcset", "poster", "data", "xlink:href",
                       "background", "cite", "longdesc", "manifest", "ping", "icon"})
BANNED_TAGS = frozenset({"iframe", "object", "embed", "base", "frame", "frameset", "applet"})
SAFE_SCHEMES = frozenset({"", "http", "https", "mailto"})


def _url_scheme(value: str) -> str:
    # What a browser does before it looks at the scheme: drop tabs/newlines anywhere,
    # strip leading and trailing C0 controls and spaces.
    cleaned = re.sub(r"[\t\n\r]", "", value).strip("".join(map(chr, range(33))))
    if cleaned.startswith(("//", "\\")):
        return ""  # a network-path reference: http(s) on the page's own scheme, no script
    try:
        return urlsplit(cleaned).scheme.lower()
    except ValueError:
        return "unparseable"


class _SafetyScanner(HTMLParser):
    """Flags what data must never become: script, event handlers, styles, unsafe URLs.

    The theme's own scripts are allowed in exactly two shapes: an external file under
    the site's own path (``<script src="/static/x.js">``, nothing inline) and a JSON-LD
    block whose content is valid JSON (so nothing broke out of it).
    """

    def __init__(self, site_path: str) -> None:
        super().__init__(convert_charrefs=True)
        self.site_path = site_path
        self.findings: list[str] = []
        self.texts: list[str] = []
        self.script: tuple[dict[str, str | None], list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        line = self.getpos()[0]
        a = dict(attrs)
        if tag in BANNED_TAGS:
            self.findings.append(f"<{tag}> element at line {line}")
        if tag == "script":
            self.script = (a, [])
            src = a.get("src")
            if src is not None and not (src.startswith(self.site_path) and not src.startswith("//")
                                        and src.endswith(".js")):
                self.findings.append(f"<script src={src!r}> at line {line} is not one of the site's own files")
            elif src is None and (a.get("type") or "") != "application/ld+json":
                self.findings.append(f"inline <script> at line {line}")
        for name, value in attrs:
            if name.startswith("on"):
                self.findings.append(f"event handler attribute {name}={value!r} on <{tag}> at line {line}")
            if name == "style":
                self.findings.append(f"style attribute {value!r} on <{tag}> at line {line}")
            if name in URL_ATTRS and value is not None:
                parts = [p.strip().split(" ")[0] for p in value.split(",")] if name == "srcset" else [value]
                for part in parts:
                    scheme = _url_scheme(part)
                    if scheme not in SAFE_SCHEMES:
                        self.findings.append(f"{name}={value!r} on <{tag}> at line {line} (scheme {scheme!r})")
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "refresh":
            self.findings.append(f"<meta http-equiv=refresh> at line {line}")
        if tag == "form" and not (a.get("action") or "").startswith(self.site_path):
            self.findings.append(f"<form action={a.get('action')!r}> at line {line} is not the site's search")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag == "script":
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self.script is not None:
            attrs, chunks = self.script
            body = "".join(chunks)
            if attrs.get("src") is not None and body.strip():
                self.findings.append("<script src=...> with inline content")
            if attrs.get("type") == "application/ld+json":
                try:
                    json.loads(body)
                except ValueError as exc:
                    self.findings.append(f"JSON-LD block is not valid JSON ({exc}): {body[:200]!r}")
            self.script = None

    def handle_data(self, data: str) -> None:
        if self.script is not None:
            self.script[1].append(data)
        else:
            self.texts.append(data)


def scan_html(source: str, site_path: str = "/") -> tuple[list[str], str]:
    """(unsafe things found, all text content outside scripts) of one HTML document."""
    s = _SafetyScanner(site_path)
    s.feed(source)
    s.close()
    return s.findings, "".join(s.texts)


ISSUES = TESTS / "fixtures" / "issues"   # issue JSON fixtures and the site they are triaged against


def copy_issue_site(dest: Path) -> Path:
    """A fresh copy of the site the issue fixtures name (tests/fixtures/issues/site) at ``dest``."""
    shutil.copytree(ISSUES / "site", dest)
    return dest
