"""The base stage: values and helpers any stage may use (errors, ids, paths, the model, text)."""
