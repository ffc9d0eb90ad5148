"""The arXiv subject taxonomy (groups, archives, categories, aliases).

Loaded from ``data/arxiv-taxonomy.yaml``, a copy of arXiv's own definitions
(arXiv/arxiv-base ``arxiv/taxonomy/definitions.py``). Feeds carry aliases
(``cs.SY`` -> ``eess.SY``), subsumed archives (``cmp-lg`` -> ``cs.CL``), legacy bare
archives (``astro-ph``) and non-arXiv codes (MSC ``35J20``, ACM ``F.4.1``): ``canonical``
maps the first two, keeps the third, and returns None for the last, so subject pages
only ever see real arXiv codes.
"""

from __future__ import annotations

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
