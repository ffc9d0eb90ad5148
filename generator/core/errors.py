"""The one error type users see.

Every expected failure (bad YAML, missing cache, unwritable output, template error)
becomes a ``SiteError`` that names the file, the line and what to do; the CLI prints
it without a traceback and exits with the error's code (1 unless it says otherwise).
Anything else is a bug and keeps its traceback.

The exit codes are declared here, once, and tabled in README.md ("Exit codes"):
fetch, build and check all use them, so a script or a CI workflow can tell an outage
it may ride out (3: publish from the cache) from a mistake someone must fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

EXIT_OK = 0          # everything asked for was done
EXIT_SITE = 1        # a site error: configuration, cache, build failure, --strict warnings
EXIT_USAGE = 2       # the command line itself is wrong (click's own code)
EXIT_UPSTREAM = 3    # some sources could not be fetched (or only in part); the cache was kept
EXIT_REFUSED = 4     # the API refused a query as written: a mistake in the author file named
EXIT_OUTPUT = 5      # the output folder (or a cache file) cannot be written
EXIT_LOCKED = 6      # another build or fetch of the same site is running


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem found in one file: ``path:line: key: message``."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}"

    @property
    def order(self) -> tuple[str, int]:
        """Problems are reported sorted by file, then line (a whole-file problem first)."""
        return self.path, self.line or 0


def plural(count: int, noun: str) -> str:
    """'1 author', '2 authors' (the nouns said to users here all take an s)."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


class SiteError(Exception):
    """An error meant for the user, carrying every problem found (one or more)."""

    def __init__(
        self,
        message: str,
        path: str | Path | None = None,
        line: int | None = None,
        hint: str | None = None,
        problems: tuple[Problem, ...] = (),
        exit_code: int = EXIT_SITE,
    ) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.hint = hint
        self.problems = problems
        self.exit_code = exit_code
        super().__init__(self.__str__())

    @classmethod
    def from_problems(cls, problems: list[Problem] | tuple[Problem, ...]) -> "SiteError":
        files = sorted({p.path for p in problems})
        head = f"{plural(len(problems), 'problem')} in {', '.join(files)}"
        return cls(head, problems=tuple(sorted(problems, key=lambda p: p.order)))

    def __str__(self) -> str:
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            text = f"{where}: {self.message}"
        else:
            text = self.message
        if self.problems:
            text += "".join(f"\n  {p}" for p in self.problems)
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text
