"""The outbox relay as a service of its own (``belot serve relay``)."""
