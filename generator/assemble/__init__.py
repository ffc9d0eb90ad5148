"""The assemble stage: the site model from the configuration and the cache."""
