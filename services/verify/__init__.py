"""The verify service: the public, read-only API that lets anyone check a finished match
(docs/verifying.md). ``belot serve verify`` runs it."""
