"""Where fetched records come from: one polite HTTP client and the fetch code the source kinds name.

A kind is declared in its module under ``config/kinds/`` (its keys, its value, its names) and
names its fetch code here, which ``registry`` imports only when a fetch runs. ``http`` is the
only code that opens a connection (rate limit, deadline, size cap, retries); ``accept``
decides whether a response body may be believed at all; ``arxiv``, ``feed``, ``orcid``,
``dblp`` and ``openalex`` turn accepted bodies into ``model.Record`` values with pure functions
that the tests feed with bytes. Typed-in records need no fetching: they come straight from the
author's YAML (``config.kinds.records``).
"""

from __future__ import annotations
