"""``authorsite init`` and ``authorsite new-author``: write the starting files of a site.

A new site installs authorsite through its own Makefile (``make site``, which its workflows
run too): by default the release from PyPI of the version that runs ``init``
(``authorsite==0.2.0``), so a site builds the same on a laptop and on a GitHub runner. A git
URL at a tag or commit is pinned only when asked (``--repo``/``--ref``): a fork, or an
unreleased commit. An authorsite that pip installed from a file (a wheel built on this machine,
which no package index has) pins that file, so the new site's ``make site`` installs what runs
``init`` (on this machine only; ``init`` says so). The Makefile's ``install`` runs the site's ``.ci/install-authorsite``,
which installs a changed pin into a fresh environment and switches ``.venv`` to it only once
it runs, so a failed install never leaves the site without authorsite.
"""

from __future__ import annotations

import json
import logging
import re
import subprocess
import unicodedata
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path

import yaml
from anyascii import anyascii

from generator import __version__
from generator.core import ids
from generator.config import SCHEMA_DIR
from generator.config.json_schema import AUTHOR_MODELINE, SITE_MODELINE, schema_texts
from generator.core.errors import SiteError
from generator.publish_workflow import makefile, publish_workflow, site_yaml

log = logging.getLogger(__name__)

_SITE_YAML = """\
# The site. Every key is checked; run 'authorsite check' after editing.
title: {title}
description: Publications of our members, linked to their original sources.
# Where the site is published; the publish workflow passes the GitHub Pages URL itself.
base_url: /
language: en
# Named in the User-Agent sent to arXiv, as its terms of use ask.
contact: someone@example.org
fetch:
  delay_seconds: 3
# Machines the publish workflow spreads a build over (README: A site past one machine).
shards: {shards}
"""

_AUTHOR_YAML = """\
# {name}'s profile; the page address is the file name: authors/{slug}/.
name: {quoted_name}
# affiliation: Example University
# bio: One or two sentences, Markdown allowed.
# links: {{homepage: "https://example.org", orcid: "0000-0002-1825-0097"}}
sources:
  # 'authorsite fetch' fills content/cache/{slug}/ from this query.
  - arxiv:
      query: {query}
      # categories: [cs.LG]      # keep only these subjects (namesakes publish elsewhere)
{records}# exclude: ['2301.99999']   # records of a namesake (quote arXiv ids)
"""

_EXAMPLE_RECORDS = """\
  # Records typed in by hand (e.g. before the first fetch, or not on arXiv):
  - records:
      - title: An example record typed in by hand
        year: 2024
        subjects: [cs.DL]
        abstract: Replace this record with your own, or delete it once 'authorsite fetch' has run.
"""

_ABOUT = """\
---
title: About
---
This site lists the publications of the people profiled here. Records link to their
original sources and are refreshed on a schedule.
"""

_GITIGNORE = "/.venv\n/.venvs/\n/.venv.new-link\n/output/\n/output.*/\n/.output.authorsite-spare/\n/.authorsite-*\n/.authorsite/\n__pycache__/\n/content/cache/.raw/\n"

_MAKEFILE = """\
# make site: install authorsite into .venv, build output/ from content/ (no network).
# {how}
# A changed pin is installed into a fresh environment under .venvs/, and .venv is switched to
# it only once it runs: if the install fails (offline, a version that does not exist), the
# authorsite you had is kept and used, and make says why.
PYTHON ?= python3
{pin}BASE_URL ?=
CLI := .venv/bin/authorsite

.PHONY: install site fetch serve check clean

install:
\t@$(PYTHON) .ci/install-authorsite "$(AUTHORSITE_PIP)"

site: install
\t$(CLI) build $(if $(BASE_URL),--base-url "$(BASE_URL)",)

fetch: install
\t$(CLI) fetch

serve: install
\t$(CLI) serve

check: site
\t$(CLI) check

clean:
\trm -rf output
"""

_CI_RUN = """\
#!/usr/bin/env bash
# What CI runs for this site: build it and check its links.
set -euo pipefail
cd "$(dirname "$0")/.."
make check
"""


def slugify(name: str) -> str:
    """A page address from a name in any script, transliterated by anyascii ("José Núñez":
    jose-nunez, "李娜": li-na, "김민수": gim-min-su, "Ђорђе": djordje); '' when nothing is left
    (symbols and emoji are dropped, not spelled out as ':yin_yang:')."""
    words = []
    for c in unicodedata.normalize("NFC", name):
        if unicodedata.category(c).startswith("S"):
            continue
        # a Chinese character or a Korean syllable is a syllable of its own: li-na, not lina
        apart = unicodedata.name(c, "").startswith(("CJK UNIFIED IDEOGRAPH", "HANGUL SYLLABLE"))
        words.append(f" {anyascii(c)} " if apart else anyascii(c))
    return re.sub(r"[^a-z0-9]+", "-", "".join(words).lower()).strip("-")[:64].strip("-")


# What a Makefile line and pip's 'git+URL@REF' carry safely: no spaces, quotes, '$', '#', '@' but in user@host.
_REPO_URL = re.compile(r"(?:https?|ssh|git|file)://(?:[A-Za-z0-9._~-]+@)?[A-Za-z0-9._~:/%+=,-]+")
_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}")
_FILE_URL = re.compile(r"file:///[A-Za-z0-9._~/%+=,-]+")
_SCP_STYLE = re.compile(r"(?:[A-Za-z0-9._-]+@)?([A-Za-z0-9.-]+):(?!//)([A-Za-z0-9._~/-]+)")


@dataclass(frozen=True, slots=True)
class Pin:
    """Where a new site installs authorsite from: a release from PyPI (``version``), a git URL
    (``repo``) at a tag or commit (``ref``) when asked for one, or the file pip installed the
    running authorsite from (``file``: a file:// URL of a wheel or sdist no index has)."""

    version: str = ""
    repo: str = ""
    ref: str = ""
    file: str = ""

    @property
    def local(self) -> bool:
        """True when the URL exists only on this machine (a CI runner cannot clone it)."""
        return self.repo.startswith("file://") or bool(self.file)

    def __str__(self) -> str:
        if self.file:
            return f"authorsite @ {self.file}"
        return f"{self.repo} at {self.ref}" if self.repo else f"authorsite=={self.version}"

    def makefile(self) -> dict[str, str]:
        """The Makefile's lines for this pin: how to upgrade, and the variables."""
        if self.file:
            return {"how": "authorsite is installed from the file below (written by 'authorsite init', run from "
                           "it):\n# no package index has it, and it exists only on this machine. To move to a "
                           "release,\n# write AUTHORSITE_PIP ?= authorsite==VERSION.",
                    "pin": f"AUTHORSITE_PIP ?= authorsite @ {self.file}\n"}
        if self.repo:
            return {"how": "authorsite is installed from git at the tag or commit below (written by 'authorsite "
                           "init').\n# To upgrade, set AUTHORSITE_REF to a newer tag or commit.",
                    "pin": f"AUTHORSITE_REPO ?= {self.repo}\nAUTHORSITE_REF ?= {self.ref}\n"
                           "AUTHORSITE_PIP ?= authorsite @ git+$(AUTHORSITE_REPO)@$(AUTHORSITE_REF)\n"}
        return {"how": "authorsite is installed from PyPI at the version below (written by 'authorsite init').\n"
                       "# To upgrade, change it (or try one first: make site AUTHORSITE_VERSION=0.3.0).",
                "pin": f"AUTHORSITE_VERSION ?= {self.version}\nAUTHORSITE_PIP ?= authorsite==$(AUTHORSITE_VERSION)\n"}


def _git(src: Path, *args: str) -> str | None:
    try:
        res = subprocess.run(["git", "-C", str(src), *args], capture_output=True, text=True, timeout=30)
    except OSError:
        return None
    return res.stdout.strip() if res.returncode == 0 and res.stdout.strip() else None


def _checkout_pin(src: Path) -> Pin | None:
    """Run from a git checkout: its origin remote (else the checkout itself) at HEAD."""
    commit = _git(src, "rev-parse", "HEAD")
    if commit is None:
        return None
    return Pin(repo=_git(src, "remote", "get-url", "origin") or str(src), ref=commit)


def _direct_url() -> dict[str, object] | None:
    """Where pip installed authorsite from when not from an index: the URL it recorded (PEP 610
    direct_url.json: a git URL and commit, a file, a folder), else None."""
    try:
        text = metadata.distribution("authorsite").read_text("direct_url.json")
        data = json.loads(text or "null")
    except (metadata.PackageNotFoundError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _installed_pin() -> Pin | None:
    """Installed by pip from git: the URL and commit pip recorded (PEP 610 direct_url.json)."""
    data = _direct_url()
    vcs = data.get("vcs_info") if data else None
    if not isinstance(vcs, dict) or vcs.get("vcs") != "git" or not vcs.get("commit_id"):
        return None
    return Pin(repo=str(data.get("url", "")), ref=str(vcs["commit_id"]))   # type: ignore[union-attr]


def installed_file() -> str | None:
    """The file:// URL of the wheel or sdist pip installed the running authorsite from (no index
    has it: a wheel built on this machine), or None (from an index, git, or a folder)."""
    data = _direct_url()
    url = str(data.get("url", "")) if data and isinstance(data.get("archive_info"), dict) else ""
    return url if url.startswith("file:///") else None


def _file_pin() -> Pin | None:
    """The installed file as a pin, when it is still there and a Makefile can hold its URL."""
    url = installed_file()
    if url is None or not _FILE_URL.fullmatch(url) or not Path(url.removeprefix("file://")).is_file():
        return None
    return Pin(version=__version__, file=url)


def running_pin() -> Pin | None:
    """The authorsite running now as a git URL and commit, when it can be told."""
    src = Path(__file__).resolve().parent.parent
    if (src / "pyproject.toml").is_file() and (src / ".git").exists():
        return _checkout_pin(src)
    return _installed_pin()


def _normal_repo(repo: str) -> str:
    """A URL pip's git+ can clone: git@host:path becomes https://, a folder or file:///path
    becomes file://localhost/path (pip refuses 'name @ git+file:///path': no host)."""
    scp = _SCP_STYLE.fullmatch(repo)
    if scp and "://" not in repo and not Path(repo).exists():
        return f"https://{scp.group(1)}/{scp.group(2)}"
    if "://" not in repo:
        repo = Path(repo).expanduser().resolve().as_uri()
    return "file://localhost/" + repo.removeprefix("file:///") if repo.startswith("file:///") else repo


def resolve_pin(repo: str | None = None, ref: str | None = None) -> Pin:
    """The pin a new site gets: this version's release from PyPI; with ``repo`` or ``ref``, a
    git URL and commit, the one not given taken from the running version."""
    if repo is None and ref is None:
        return _file_pin() or Pin(version=__version__)
    running = running_pin() if repo is None or ref is None else None
    repo = repo or (running.repo if running else None)
    ref = ref or (running.ref if running else None)
    if not repo or not ref:
        raise SiteError("cannot tell which git URL and commit this authorsite came from, so not which one "
                        "a new site should install", hint="name them: authorsite init DIR --repo "
                        "https://github.com/OWNER/REPO --ref TAG-OR-COMMIT")
    pin = Pin(repo=_normal_repo(repo), ref=ref)
    if not _REPO_URL.fullmatch(pin.repo):
        raise SiteError(f"{repo!r} is not a git URL a Makefile can hold (nor one with a password in it)",
                        hint="pass --repo with an https://, ssh:// or file:// URL (or a folder) without spaces, "
                        "quotes, '$', '#' or '@' in its path")
    if not _REF.fullmatch(pin.ref) or ".." in pin.ref:
        raise SiteError(f"--ref {ref!r} is not a tag, branch or commit name",
                        hint="use letters, digits, '.', '_', '/' and '-', e.g. v0.2.0 or a commit id")
    return pin


def pin_warning(pin: Pin, makefile: Path, default: bool) -> str | None:
    """What ``init`` says when the new site's Makefile pins what exists only on this machine, or
    pins a release in place of the file this authorsite was installed from (``default``: no
    --repo or --ref was given)."""
    if pin.file:
        return (f"this authorsite was installed from a file that no package index has "
                f"({pin.file.removeprefix('file://')}): the Makefile installs that file, so 'make site' works on "
                "this machine (offline too, once pip has authorsite's dependencies), not in the site's workflows "
                f"on GitHub; for those, pin a release or a git URL in {makefile} (AUTHORSITE_PIP)")
    gone = installed_file() if default else None
    if gone:
        return (f"this authorsite was installed from {gone}, which no package index has, and the file is gone (or "
                f"its URL cannot be written in a Makefile): the Makefile pins {pin}, which installs once it is "
                f"released; to install the file instead, put it back and run: make site AUTHORSITE_PIP='authorsite "
                f"@ {gone}'")
    if pin.local:
        return ("that URL exists only on this machine, so the site's workflows cannot install authorsite on "
                "GitHub: run init with --repo https://github.com/OWNER/REPO --ref TAG, or set AUTHORSITE_REPO and "
                f"AUTHORSITE_REF in {makefile}")
    return None


def create_site(directory: Path, title: str = "Author profiles", pin: Pin | None = None, shards: int = 1,
                host: str = "github-pages") -> Pin:
    """Write a new site into ``directory`` (new or empty); return the authorsite pin its Makefile installs.
    ``shards``: site.yaml's, the machines its publish workflow builds on; ``host``: where that workflow
    publishes (generator.publish_workflow.INIT_HOSTS)."""
    if directory.exists() and any(directory.iterdir()):
        raise SiteError("folder is not empty", path=str(directory), hint="choose a new folder name")
    if "\n" in title or not title.strip():
        raise SiteError("the title must be one non-empty line")
    pin = pin or resolve_pin()
    directory.mkdir(parents=True, exist_ok=True)
    scaffold = resources.files("generator").joinpath("scaffold")
    safe_title = '"' + title.replace("\\", "\\\\").replace('"', '\\"') + '"'
    files = {
        "site.yaml": SITE_MODELINE + site_yaml(_SITE_YAML.format(title=safe_title, shards=shards), host),
        "content/authors/jane-doe.yaml": AUTHOR_MODELINE + _author_yaml("Jane Doe", "jane-doe", _EXAMPLE_RECORDS),
        "content/pages/about.md": _ABOUT,
        "content/cache/.gitkeep": "",
        ".gitignore": _GITIGNORE,
        "Makefile": makefile(_MAKEFILE.format(**pin.makefile()), host),
        ".github/workflows/publish.yml": publish_workflow(host),
        ".ci/run": _CI_RUN,
        ".ci/install-authorsite": scaffold.joinpath("ci/install-authorsite").read_text("utf-8"),
    }
    # The editor schema of this authorsite version, named by the first line of site.yaml and author files.
    files.update({f"{SCHEMA_DIR}/{name}": text for name, text in schema_texts().items()})
    workflows = scaffold.joinpath("github/workflows")
    for name in ("test.yml", "triage.yml"):
        files[f".github/workflows/{name}"] = workflows.joinpath(name).read_text("utf-8")
    for name in ("not-mine.yml", "add-me.yml"):   # the issue forms triage.yml acts on
        files[f".github/ISSUE_TEMPLATE/{name}"] = scaffold.joinpath("github/ISSUE_TEMPLATE", name).read_text("utf-8")
    for rel, text in files.items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (directory / ".ci/run").chmod(0o755)
    (directory / ".ci/install-authorsite").chmod(0o755)
    return pin


def add_author(root: Path, name: str, slug: str | None = None) -> Path:
    """Write content/authors/SLUG.yaml for ``name``: any name a person has ("Seán O'Brien",
    "李小龍", in content/authors/li-xiao-long.yaml), written as YAML quotes it; only a double quote or a backslash,
    which an arXiv author query cannot hold, is refused."""
    if not (root / "site.yaml").is_file():
        raise SiteError(f"no site.yaml in {root}: run new-author in a site's folder (or give it with -C FOLDER), "
                        "or start a site with 'authorsite init FOLDER'")
    name = " ".join(name.split())
    if not name:
        raise SiteError("the author's name is empty", hint='give it in quotes: authorsite new-author "Ada Lovelace"')
    if any(c in name for c in '"\\') or not name.isprintable():
        raise SiteError(f"the name {name!r} cannot be searched on arXiv as written (a double quote, a backslash "
                        "or a control character)", hint="write it without them")
    slug = _slug(name, slug)
    folder = root / "content" / "authors"
    for ext in (".yaml", ".yml"):
        if (folder / f"{slug}{ext}").exists():
            raise SiteError("an author with this slug exists already", path=str(folder / f"{slug}{ext}"),
                            hint=f"give the new author another with --slug, e.g. --slug {slug}-2")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{slug}.yaml"
    path.write_text(AUTHOR_MODELINE + _author_yaml(name, slug, ""), encoding="utf-8")
    return path


def _slug(name: str, given: str | None) -> str:
    """The page address: ``given`` (--slug) when safe, else made from the name; a SiteError in
    plain words when neither gives one."""
    how = "lower-case letters, digits and hyphens"
    if given is not None:
        if not ids.is_slug(given):
            raise SiteError(f"--slug '{given}' is not a safe page address", hint=f"use {how}, e.g. --slug ada-lovelace")
        return given
    made = slugify(name)
    if not made:
        raise SiteError(f"the name '{name}' gives no page address in Latin letters",
                        hint=f'choose one with --slug, e.g. authorsite new-author "{name}" --slug first-last ({how})')
    if not ids.is_slug(made):
        raise SiteError(f"the name '{name}' gives the page address '{made}', a name Windows keeps for a device",
                        hint=f"choose another with --slug, e.g. --slug {made}-2")
    return made


def _author_yaml(name: str, slug: str, records: str) -> str:
    """The new author file: the name plain when YAML reads it back as written, else quoted, and
    the arXiv query in single quotes (a quote in it doubled: 'au:"Seán O''Brien"')."""
    try:
        plain = "#" not in name and yaml.safe_load(f"name: {name}") == {"name": name}
    except (yaml.YAMLError, ValueError):   # 'Ada: x', a date YAML cannot make
        plain = False
    query = "'" + f'au:"{name}"'.replace("'", "''") + "'"
    return _AUTHOR_YAML.format(name=name, slug=slug, records=records, query=query,
                               quoted_name=name if plain else json.dumps(name, ensure_ascii=False))
