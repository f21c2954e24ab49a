"""A refusal with a stable code, as every service answers one: ``{"error": code,
"message": text}``.

Its own module because both sides of a request need it without needing each other:
:mod:`belot_platform.messaging` raises it back on the caller's side of a NATS request,
and :mod:`belot_platform.outage` reads its code to tell an outage from a refusal.
"""

from __future__ import annotations


class ServiceError(Exception):
    """An error with a stable code, sent to the requester as ``{"error", "message"}``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, str]:
        return {"error": self.code, "message": self.message}
