"""What the readers of the site's files ask of a cache of parsed values: ``ParseCache``.

The configuration (the author files, generator.config.authors) and the store (the cache files,
generator.store.reader) parse a file through one when they are given one, so a rebuild parses only
the files that changed. They know this protocol only: the cache there is, the speed layer's
``generator.incremental.parsed.ParsedInputs``, is made by the build and passed in, so loading a
site never imports the layer that makes loading it fast.
"""

from __future__ import annotations

from typing import Callable, Protocol, TypeVar

T = TypeVar("T")


class ParseCache(Protocol):
    """A cache of the values files parse to, keyed by what was parsed (its kind, name and bytes)."""

    write: bool    # whether a value parsed now is kept (a forked helper parsing ahead needs it kept)

    def get(self, kind: str, name: str, data: bytes, parse: Callable[[bytes], T]) -> T:
        """The value ``parse(data)`` gives, from the cache when it holds it; ``parse``'s exceptions
        propagate and nothing is kept."""
        ...

    def holds(self, kind: str, name: str, data: bytes) -> bool:
        """Whether a value for ``(kind, name, data)`` is kept (without reading it)."""
        ...
