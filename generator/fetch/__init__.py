"""The fetch stage's cache: the committed cache files, their one reader, and `authorsite fetch`."""
