"""``authorsite init`` and ``authorsite new-author``: write the starting files of a site."""

from __future__ import annotations

import re
import unicodedata
from importlib import resources
from pathlib import Path

from generator import ids
from generator.config import SCHEMA_DIR
from generator.config.json_schema import AUTHOR_MODELINE, SITE_MODELINE, schema_texts
from generator.errors import SiteError

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
"""

_AUTHOR_YAML = """\
# {name}'s profile; the page address is the file name: authors/{slug}/.
name: {name}
# affiliation: Example University
# bio: One or two sentences, Markdown allowed.
# links: {{homepage: "https://example.org", orcid: "0000-0002-1825-0097"}}
sources:
  # 'authorsite fetch' fills content/cache/{slug}/ from this query.
  - arxiv:
      query: 'au:"{name}"'
      # categories: [cs.LG]      # keep only these subjects (namesakes publish elsewhere)
{records}# exclude: ['2301.99999']   # records of a namesake (quote arXiv ids)
"""

_EXAMPLE_RECORDS = """\
  # Records typed in by hand (e.g. before the first fetch, or not on arXiv):
  - records:
      - title: An example record typed in by hand
        year: 2024
        source: Manual
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

_GITIGNORE = "/.venv/\n/output/\n/output.*/\n/.authorsite-*\n/.authorsite/\n__pycache__/\n/content/cache/.raw/\n"

_MAKEFILE = """\
# make site: set up .venv, install authorsite, build output/ from content/ (no network).
PYTHON ?= python3
VENV ?= .venv
AUTHORSITE_PIP ?= {pip_spec}
BASE_URL ?=
CLI := $(VENV)/bin/authorsite

.PHONY: site fetch serve check clean

$(VENV)/.installed:
\ttest -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
\t$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check $(AUTHORSITE_PIP)
\ttouch $@

site: $(VENV)/.installed
\t$(CLI) build $(if $(BASE_URL),--base-url "$(BASE_URL)",)

fetch: $(VENV)/.installed
\t$(CLI) fetch

serve: $(VENV)/.installed
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
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")[:64].strip("-")


def _pip_spec() -> str:
    """How a new site installs authorsite: this source tree when we run from one."""
    src = Path(__file__).resolve().parent.parent
    return str(src) if (src / "pyproject.toml").is_file() else "authorsite"


def create_site(directory: Path, title: str = "Author profiles") -> None:
    if directory.exists() and any(directory.iterdir()):
        raise SiteError("folder is not empty", path=str(directory), hint="choose a new folder name")
    if "\n" in title or not title.strip():
        raise SiteError("the title must be one non-empty line")
    directory.mkdir(parents=True, exist_ok=True)
    safe_title = '"' + title.replace("\\", "\\\\").replace('"', '\\"') + '"'
    files = {
        "site.yaml": SITE_MODELINE + _SITE_YAML.format(title=safe_title),
        "content/authors/jane-doe.yaml": AUTHOR_MODELINE + _AUTHOR_YAML.format(name="Jane Doe", slug="jane-doe",
                                                                               records=_EXAMPLE_RECORDS),
        "content/pages/about.md": _ABOUT,
        "content/cache/.gitkeep": "",
        ".gitignore": _GITIGNORE,
        "Makefile": _MAKEFILE.format(pip_spec=_pip_spec()),
        ".ci/run": _CI_RUN,
    }
    # The editor schema of this authorsite version, named by the first line of site.yaml and author files.
    files.update({f"{SCHEMA_DIR}/{name}": text for name, text in schema_texts().items()})
    workflows = resources.files("generator").joinpath("scaffold/github/workflows")
    for name in ("test.yml", "publish.yml"):
        files[f".github/workflows/{name}"] = workflows.joinpath(name).read_text("utf-8")
    for rel, text in files.items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (directory / ".ci/run").chmod(0o755)


def add_author(root: Path, name: str, slug: str | None = None) -> Path:
    name = " ".join(name.split())
    if not name or any(c in name for c in "\"'\\:#{}[]"):
        raise SiteError(f"the name {name!r} must be plain text without quotes, colons or brackets")
    slug = slug or slugify(name)
    if not ids.is_slug(slug):
        raise SiteError(f"'{slug}' is not a safe page address", hint="use lower-case letters, digits and hyphens")
    folder = root / "content" / "authors"
    for ext in (".yaml", ".yml"):
        if (folder / f"{slug}{ext}").exists():
            raise SiteError("an author with this slug exists already", path=str(folder / f"{slug}{ext}"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{slug}.yaml"
    path.write_text(AUTHOR_MODELINE + _AUTHOR_YAML.format(name=name, slug=slug, records=""), encoding="utf-8")
    return path
