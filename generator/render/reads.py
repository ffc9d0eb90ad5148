"""What every job reads besides its plan, derived from the model, never listed by hand.

Templates see the whole site model as globals (``site``, ``authors_by_slug``), but a job's
digest (generator.render.jobs) covers its plan's values and what every job reads: the values here.
The built-in theme reads nothing else of the globals (tests/incremental/test_incremental_equals_clean.py
checks its templates); a site's own templates may read anything, so their jobs are keyed on
the whole model (``jobs.common_digest``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generator.core.model import SiteModel

# The fields of the site model that a job reads only as its plan hands them over (an author's
# page its author, a subject page its records, each record with who lists it): never digested
# whole into every job's. What every page reads of the authors (their slugs and names, through
# ``authors_by_slug``) is (``site_values``).
PLANNED = frozenset({"authors", "subjects", "record_authors", "newest", "feeds"})


def site_values(site: SiteModel) -> tuple[tuple[str, object], ...]:
    """What a template of the built-in theme may read of the site model besides its plan: every
    field but the planned ones, taken from the dataclass (a field added to SiteModel is digested
    without a word here), and each author's slug and names (a byline shows a profiled author's
    name in its own script beside the Latin one)."""
    values = tuple((f.name, getattr(site, f.name)) for f in dataclasses.fields(site) if f.name not in PLANNED)
    return (*values, ("authors", tuple((a.slug, a.name, a.name_native, a.name_native_lang) for a in site.authors)))


def overridden(root: Path, theme: str) -> bool:
    """True when the site has templates of its own (``templates/``, or a theme in ``themes/``):
    they may read anything the globals reach (``site.authors``, every record), which no plan
    declares, so every job is keyed on the whole site model (``jobs.common_digest``)."""
    tops = [root / "templates", root / "themes" / theme / "templates"]
    return any(f.is_file() for top in tops if top.is_dir() for f in top.rglob("*"))
