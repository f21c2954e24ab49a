"""The verify service: the public, read-only API that lets anyone check a finished match
(README, "Verifying a match"). ``belot serve verify`` runs it."""
