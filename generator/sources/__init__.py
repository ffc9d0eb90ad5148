"""Where fetched records come from: one polite HTTP client and one module per source kind.

``http`` is the only code that opens a connection (rate limit, deadline, size cap,
retries); ``accept`` decides whether a response body may be believed at all;
``arxiv`` and ``feed`` turn accepted bodies into ``model.Record`` values with pure
functions that the tests feed with bytes. Typed-in records need no fetching: they
come straight from the author's YAML (``config.RecordsSource``).
"""

from __future__ import annotations
