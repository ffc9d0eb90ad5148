"""The arXiv subject taxonomy (groups, archives, categories, aliases).

Loaded from ``data/arxiv-taxonomy.yaml``, a copy of arXiv's own definitions
(arXiv/arxiv-base ``arxiv/taxonomy/definitions.py``). Feeds carry aliases
(``cs.SY`` -> ``eess.SY``), subsumed archives (``cmp-lg`` -> ``cs.CL``), legacy bare
archives (``astro-ph``) and non-arXiv codes (MSC ``35J20``, ACM ``F.4.1``): ``canonical``
maps the first two, keeps the third, and returns None for the last, so subject pages
only ever see real arXiv codes.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Mapping

import yaml

# The order arXiv lists its groups on https://arxiv.org (and in its taxonomy page).
GROUP_ORDER = (
    "grp_physics",
    "grp_math",
    "grp_cs",
    "grp_q-bio",
    "grp_q-fin",
    "grp_stat",
    "grp_eess",
    "grp_econ",
)

# Codes arXiv never had that people write for one it has (checked against arXiv's listings):
# machine learning is filed under stat.ML and cs.LG, never cs.ML; language is cs.CL. Looked up
# in lower case; other wrong codes get arXiv's own codes with the same subject (stat.LG: cs.LG).
COMMON_MISTAKES = {
    "cs.ml": ("stat.ML", "cs.LG"),
    "stat.lg": ("cs.LG", "stat.ML"),
    "cs.nlp": ("cs.CL",),
    "cs.qc": ("quant-ph",),
    "cs.quant-ph": ("quant-ph",),
}
SHOWN = 6   # categories named in the hint for a bare archive ('physics': physics.acc-ph, ...)


@dataclass(frozen=True, slots=True)
class Category:
    code: str
    name: str
    archive: str
    archive_name: str
    group: str
    group_name: str
    status: str
    canonical: str | None = None


@dataclass(frozen=True, slots=True)
class Taxonomy:
    categories: Mapping[str, Category]
    groups: Mapping[str, str]

    def canonical(self, term: str) -> str | None:
        """The canonical arXiv code for a category term, or None if it is not arXiv's."""
        cat = self.categories.get(term.strip())
        if cat is None:
            return None
        if cat.status in ("alias", "subsumed") and cat.canonical:
            return cat.canonical
        return cat.code

    def get(self, code: str) -> Category | None:
        return self.categories.get(code)

    def suggestions(self, term: str) -> tuple[str, ...]:
        """The arXiv categories a code that is not one was meant to be, best first: the same code in
        other letter case, a known mistake (COMMON_MISTAKES), the same subject in another archive
        (arXiv's own aliases share theirs: cs.NA and math.NA), else the nearest spelling."""
        code = term.strip()
        folded = code.casefold()
        same_case = [c for c in self.categories if c.casefold() == folded]
        if same_case or folded in COMMON_MISTAKES:
            return tuple(same_case) or COMMON_MISTAKES[folded]
        subject = folded.rpartition(".")[2] if "." in folded else None
        found: list[str] = []
        for c in self.categories.values():
            if subject and "." in c.code and c.code.rpartition(".")[2].casefold() == subject:
                canon = self.canonical(c.code)
                if canon and canon not in found:
                    found.append(canon)
        return tuple(found) or tuple(difflib.get_close_matches(code, self.canonical_codes(), n=1, cutoff=0.6))

    def canonical_codes(self) -> list[str]:
        return [c.code for c in self.categories.values() if c.status not in ("alias", "subsumed")]

    def archive_categories(self, term: str) -> tuple[str, ...]:
        """The active categories of an archive (``physics``: physics.acc-ph ...), or () when
        ``term`` names none."""
        folded = term.strip().casefold()
        return tuple(c.code for c in self.categories.values()
                     if c.archive.casefold() == folded and c.code != c.archive and c.status == "active")

    def hint(self, term: str) -> str:
        """What to write instead of ``term``, which is no arXiv category: '' when nothing is near."""
        archive = self.archive_categories(term)
        if archive:
            name = term.strip().lower()
            shown = ", ".join(archive[:SHOWN]) + (", ..." if len(archive) > SHOWN else "")
            return (f"'{name}' is an archive, not a category: name one or more of its {len(archive)} categories "
                    f"({shown}), listed on https://arxiv.org/archive/{name}")
        close = self.suggestions(term)
        return f"did you mean {' or '.join(repr(c) for c in close)}?" if close else ""

    def group_rank(self, group: str) -> int:
        return GROUP_ORDER.index(group) if group in GROUP_ORDER else len(GROUP_ORDER)


@lru_cache(maxsize=1)
def load_taxonomy() -> Taxonomy:
    """Read the shipped taxonomy once per process."""
    text = resources.files("generator").joinpath("data/arxiv-taxonomy.yaml").read_text("utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader, shipped file
    cats = {}
    for code, c in data["categories"].items():
        cats[code] = Category(
            code=code,
            name=c["name"],
            archive=c.get("archive", code),
            archive_name=c.get("archive_name", c["name"]),
            group=c.get("group", ""),
            group_name=c.get("group_name", ""),
            status=c.get("status", "active"),
            canonical=c.get("canonical"),
        )
    groups = {k: v["name"] for k, v in data["groups"].items()}
    return Taxonomy(MappingProxyType(cats), MappingProxyType(groups))
