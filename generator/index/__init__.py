"""The index: the build's records on disk (SQLite), between assemble and plan (docs/how-a-build-works.md)."""
