"""The text caches of a process: bounded memos of pure functions keyed by record text (LaTeX to
text, names, the exports' pieces), and one way to let them all go (``clear``).

They fill as pages are rendered, up to their bounds: at 20,000 x 100 the build's process grew
by about 40 MB a chunk of 20,000 jobs as it rendered its share (the LaTeX cache alone holds
131,072 titles and abstracts, keys and values). A build over the index forks its render
processes again for each chunk, each at the size of the build's process then, so the build's
process lets them go between chunks (generator.write.parallel.Pool): the memory freed is
reused by the next chunk's entries instead of the process growing on. Clearing changes no byte
of output: the functions are pure, and their values are made again when asked.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

T = TypeVar("T")

_ALL: list[functools._lru_cache_wrapper[Any]] = []


def text_cache(maxsize: int) -> Callable[[Callable[..., T]], functools._lru_cache_wrapper[T]]:
    """``functools.lru_cache(maxsize)``, registered so that ``clear`` clears it."""
    def wrap(fn: Callable[..., T]) -> functools._lru_cache_wrapper[T]:
        cached = functools.lru_cache(maxsize=maxsize)(fn)
        _ALL.append(cached)
        return cached
    return wrap


def clear() -> int:
    """Let every text cache of this process go; returns how many entries they held."""
    held = sum(c.cache_info().currsize for c in _ALL)
    for c in _ALL:
        c.cache_clear()
    return held
