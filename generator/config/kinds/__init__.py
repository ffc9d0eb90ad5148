"""The source kinds, one module each in this folder; a new kind is its module plus one line below.

Each module defines ``KIND``, an instance of a ``config.kind.SourceKind`` subclass that sets its
keys (``schema``, a ``schema.Table``; its config value is made from it with ``source_class``),
its ``name``, docs ``heading`` and ``example``, and ``fetcher``, the "module:function" that
fetches it; it overrides ``build``, ``rule``, ``cache_key``, ``label`` and the others where the
defaults do not fit. The module imports nothing of the fetch stage (generator/sources/): its fetch
function is either there, named, or in the module itself, using only what ``FetchContext``
hands it. tests/sources/test_new_kind.py adds such a kind (``bibjson``) to a copy of the package.

``config.sources`` imports the modules named here, in this order: the order in which messages,
the docs and the JSON Schema list the kinds.
"""

from __future__ import annotations

REGISTERED = (
    "arxiv",
    "feed",
    "records",
    "orcid",
    "dblp",
    "openalex",
)
