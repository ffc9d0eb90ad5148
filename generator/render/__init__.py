"""The plan stage: the jobs, the templates' context and what each page renders."""
