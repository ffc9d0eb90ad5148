"""The source kinds, one module each in this folder; a new kind is its module plus one line below.

Each module defines ``KIND``, a ``config.kind.SourceKind``: its keys, how its entries are
checked and built, how it is named, and the fetch code that fills its cache. ``config.sources``
imports the modules named here (in this order: the order messages and the docs list the kinds).
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
