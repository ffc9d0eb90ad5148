"""Everything a build keeps only to go faster: what it reuses of the last build.

A build is correct without any of it: ``authorsite build --no-reuse`` reads nothing these
modules keep and writes the same bytes (tests/incremental/test_no_reuse.py). Each module is one accelerator,
reached from the pipeline through a few seams:

- loading: ``inputs`` (each input file digested once; the "nothing changed" check),
  ``parsed`` (parsed YAML and cache files kept by content), ``snapshot``, ``hollow`` and ``values``
  (each author as the last build assembled it, its records filled on first use);
- assembling and planning: ``canonical`` (job digests encoded in C), ``subject_order`` and ``subject_jobs``
  (each subject's records and job digests kept while the subject is unchanged), ``feed_kept``
  (the feeds' entry ids kept while the records' keys and venues and the feeds' memory are);
- the preview: ``memory`` (what ``serve`` keeps between edits: configuration, store, authors,
  the site-wide model; ``serve --no-reuse`` keeps none of it);
- output: ``prelink`` (the staging folder linked from the last output while the build loads),
  ``search_kept`` and ``search_patch`` (the search index patched from the
  last build's).

See docs/how-a-build-works.md, "Reuse".
"""
