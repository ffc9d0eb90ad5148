"""The digests of each subject's jobs, kept from the last build while the subject is unchanged.

Planning digests what every job reads (generator.jobs). A subject's pages each read its heading,
a slice of its records and a pager; its feed, the newest of them: at 1,000 x 100, 4,900 pages
listing 244,000 records, two thirds of planning a one-author rebuild. All of it follows from
what every job reads (``common``: the code, the templates, the site's settings, among them
``paginate``, ``feed_size`` and the authors in site order), the subject's heading (its names,
count and authors) and the digest of every record of each of its authors (``Digester.record``:
its fields and who lists it); the pages' addresses follow from its code. So per subject the build keeps, in the parsed-input
cache, the digest of those (``fingerprint``) with the digest of each job of its group
(``subject:CODE``), and takes them back while the fingerprint is the same: a subject none of
whose records changed is not digested page by page again. Any other subject is planned as
before, and kept anew.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Sequence

from generator.model import SubjectHeading

if TYPE_CHECKING:
    from generator.jobs import Digester, Job
    from generator.model import SiteModel
    from generator.parsed import ParsedInputs

KIND = "subject-jobs"
# code -> (fingerprint, ((output path, job digest), ...)) of each subject's group of jobs
Kept = Mapping[str, tuple[bytes, tuple[tuple[str, str], ...]]]


def group(code: str) -> str:
    """The group of a subject's jobs (generator.render: its pages and its feed)."""
    return f"subject:{code}"


@dataclass(frozen=True)
class SubjectJobs:
    """The subjects' fingerprints of this plan, and the job digests they let it take."""

    prints: Mapping[str, bytes]        # code -> fingerprint
    known: Mapping[str, str]           # output path -> job digest, for the subjects unchanged
    last: Kept = field(default_factory=dict)

    @classmethod
    def plan(cls, site: SiteModel, digester: Digester, common: bytes, parsed: ParsedInputs) -> SubjectJobs:
        authors = {a.slug: hashlib.sha256(digester.joined(a.records)).digest() for a in site.authors}
        prints = {s.code: fingerprint(common, site.paginate, digester.digest(SubjectHeading.of(s)),
                                      b"".join([authors.get(slug, b"?") for slug, _ in s.authors]))
                  for s in site.subjects}
        last = _last(parsed)
        known = {path: digest for code, f in prints.items() if code in last and last[code][0] == f
                 for path, digest in last[code][1]}
        return cls(prints, known, last)

    def keep(self, parsed: ParsedInputs, planned: Sequence[Job]) -> None:
        """Keep each subject's fingerprint with its jobs' digests, for the next build."""
        by_group: dict[str, list[tuple[str, str]]] = {}
        for job in planned:
            by_group.setdefault(job.task.group, []).append((job.rel_path, job.digest))
        kept = {code: (f, tuple(by_group.get(group(code), ()))) for code, f in self.prints.items()}
        if kept != self.last:
            parsed.put(KIND, "site", b"", kept)


def fingerprint(common: bytes, paginate: int, heading: bytes, authors: bytes) -> bytes:
    """What a subject's jobs read: what every job reads (the authors in site order among it), the
    pages' size, its heading's digest (its authors among it), and the digest of every record of
    each of its authors (``authors``: each one's, in the heading's order). The records a subject
    lists, and their order, follow from those: which author's copy of a record is listed (the
    first's, in site order) and where (by year, date and subjects) are fields of the records."""
    h = hashlib.sha256(common)
    h.update(b"%d\0" % paginate + heading + b"\0")
    h.update(authors)
    return h.digest()


def _last(parsed: ParsedInputs) -> Kept:
    """The last build's entry, or nothing when it is absent or not of this shape (never trusted)."""
    hit = parsed.lookup(KIND, "site", b"")
    value = hit[0] if hit is not None else None
    if not isinstance(value, dict):
        return {}
    return {code: e for code, e in value.items() if isinstance(code, str) and _entry(e)}


def _entry(e: object) -> bool:
    return (isinstance(e, tuple) and len(e) == 2 and isinstance(e[0], bytes) and isinstance(e[1], tuple)
            and all(isinstance(p, tuple) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in e[1]))
