"""``authorsite fetch``: the network side that fills the cache (through generator.store)."""
