"""`authorsite serve`: the live preview (one pipeline with build, its state kept in memory)."""
