"""The ``openalex:`` source kind: an author's works in OpenAlex, cached as ``openalex-<id>.json``.

Paging, acceptance, the API key and parsing are ``sources.openalex``'s (named by ``fetcher``).
"""

from __future__ import annotations

import re

from generator.config.kind import SourceKind, source_class
from generator.config.schema import Key, Table

OPENALEX_AUTHOR_PATTERN = r"(?:https?://openalex\.org/)?[Aa][0-9]{4,12}"


def check_openalex_author(text: str) -> str | None:
    """An OpenAlex author id (``A5023888391``, also from its https://openalex.org/ URL), upper-case A."""
    if not re.fullmatch(OPENALEX_AUTHOR_PATTERN, text.strip()):
        return None
    return "A" + text.strip().rsplit("/", 1)[-1][1:]


OPENALEX = Table("openalex", (
    Key("author", "text", "the author's OpenAlex id", required=True, check=check_openalex_author,
        expect="an OpenAlex author id such as A5023888391", pattern=OPENALEX_AUTHOR_PATTERN),
), help="An author's works in OpenAlex, with citation counts (OPENALEX_API_URL overrides its address; "
        "the API key is read from the environment variable OPENALEX_API_KEY, never from a file). "
        "A lone text is the author id.", shorthand="author")

OpenAlexSource = source_class("OpenAlexSource", OPENALEX, __name__)


class OpenAlexKind(SourceKind):
    schema = OPENALEX
    config_type = OpenAlexSource
    name = "OpenAlex"
    heading = "an author's works in OpenAlex"
    example = "A5023888391"
    fetcher = "generator.sources.openalex:fetch"
    checker = "generator.sources.openalex:check"

    def cache_key(self, source: OpenAlexSource) -> str:
        return f"openalex-{source.author}"

    def review_text(self, source: OpenAlexSource) -> str:
        return f"OpenAlex author {source.author}"


KIND = OpenAlexKind()
