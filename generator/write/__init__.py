"""The write stage: the output folder, the render pool, the search index, the link check."""
