"""Issues from the site's GitHub issue forms, turned into edits of its author files.

``issue`` reads an issue's JSON and the answers of its form (by the form file's own labels),
as hostile data; ``yamledit`` adds one item to a list of an author file, keeping the rest of it;
``triage`` applies a "Not mine?" issue (``authorsite triage``); ``addme`` writes the author file
of an "Add me" issue (``authorsite new-author --from-issue``). The workflow that runs them is
the scaffold's .github/workflows/triage.yml.
"""
