"""The gateway's rules, without I/O: signed bearer tokens, per-player rate limits,
what a player may see of an event while the match runs, and the table's own lines in
its chat.

Tokens are itsdangerous' ``URLSafeTimedSerializer`` (HMAC-SHA256 over the JSON
``{"sub": account id, "name": name}`` and a timestamp), checked with a maximum age.
The signing key is ``BELOT_TOKEN_SECRET``, or one generated at first start and kept in
``BELOT_DATA_DIR/gateway-token-secret`` (mode 0600), so tokens survive a restart.
"""

from __future__ import annotations

import hmac
import math
import os
import secrets
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from eventkit.streams import MATCH_ENDINGS, RANDOMNESS, SEEDS_SHOWN

SALT: Final = "belot.gateway.session"
SECRET_FILE: Final = "gateway-token-secret"

#: Match streams end with one of these (public): everything is visible after.
MATCH_ENDING: Final = MATCH_ENDINGS
#: A randomness stream shows every seat's seed once its window closed.
RANDOMNESS_OPENED_BY: Final = SEEDS_SHOWN


class TokenError(Exception):
    """A bearer token that is missing, forged, malformed or expired."""


@dataclass(frozen=True, slots=True)
class Identity:
    player: str  # the account id
    name: str


class Tokens:
    """Signs with ``secret``; checks with it and, during a rotation, with ``previous``
    too (itsdangerous' key list, oldest first: the last key signs)."""

    def __init__(self, secret: str, ttl_s: int, previous: str | None = None) -> None:
        keys = [previous, secret] if previous else [secret]
        self._s = URLSafeTimedSerializer(keys, salt=SALT)
        self.ttl_s = ttl_s

    def issue(self, identity: Identity) -> str:
        token: str = self._s.dumps({"sub": identity.player, "name": identity.name})
        return token

    def check(self, token: str) -> Identity:
        """The identity a token carries; raises :class:`TokenError`."""
        try:
            data = self._s.loads(token, max_age=self.ttl_s)
        except SignatureExpired:
            raise TokenError("the token has expired: open a new session") from None
        except BadSignature:
            raise TokenError("the token is not one this gateway signed") from None
        if not isinstance(data, dict) or not isinstance(data.get("sub"), str):
            raise TokenError("the token is malformed")
        return Identity(data["sub"], str(data.get("name", "")))


def token_secret(configured: str | None, data_dir: Path) -> str:
    """The configured secret, else the one kept under ``data_dir`` (made at first call,
    readable by the owner only)."""
    if configured:
        return configured
    path = data_dir / SECRET_FILE
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text(encoding="utf-8").strip()
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32))
    return path.read_text(encoding="utf-8").strip()


class RateLimiter:
    """A token bucket per key (a player, or an address without a valid token): ``rate``
    requests a second sustained, ``burst`` at once. Time is passed in (seconds)."""

    def __init__(self, rate: float, burst: int, max_keys: int = 100_000) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str, now: float) -> float:
        """0 if the request may go, else the seconds until it may."""
        tokens, last = self._buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        if tokens >= 1:
            self._buckets[key] = (tokens - 1, now)
            wait = 0.0
        else:
            self._buckets[key] = (tokens, now)
            wait = (1 - tokens) / self.rate
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return wait


def same_secret(given: str, secret: str) -> bool:
    """Is ``given`` the secret, in constant time? As bytes: ``hmac.compare_digest``
    raises TypeError for a text with non-ASCII characters (a token anyone may send)."""
    return hmac.compare_digest(
        given.encode("utf-8", "surrogatepass"), secret.encode("utf-8", "surrogatepass")
    )


def retry_after(wait_s: float) -> str:
    return str(max(1, math.ceil(wait_s)))


def may_see(visibility: str, seat: int | None, opened: bool) -> bool:
    """May a player at ``seat`` (None: a spectator) see an event of this visibility?
    ``opened``: the stream's match has ended, so nothing is hidden any more."""
    if opened or visibility == "public":
        return True
    return seat is not None and visibility == f"seat:{seat}"


# --- the table's own lines in its chat ------------------------------------------------

#: The fair deal's events that the table says in its chat, in words. They are public
#: events of ``randomness-<match>``: the chat's table lines are derived from the log when
#: they are read or forwarded, never stored a second time.
TABLE_LINE_EVENTS: Final = frozenset(
    {"ServerSeedCommitted", "DrandRoundNamed", "DrandFallback", "ServerSeedRevealed"}
)


def table_line(
    stream: str, version: int, event_type: str, payload: dict[str, Any], visibility: str
) -> dict[str, Any] | None:
    """The chat line the table says for one of its events (None: it says nothing for
    this one). Only public events are said: whoever may watch the table saw them."""
    if visibility != "public" or event_type not in TABLE_LINE_EVENTS:
        return None
    if not stream.startswith(RANDOMNESS):
        return None
    p = payload
    if event_type == "ServerSeedCommitted":
        text = (f"The server commits to its secret seed: its SHA-256 is {p['commitment']}. "
                "Your tab keeps it and checks the seed against it at the end.")  # fmt: skip
        facts: dict[str, Any] = {"commitment": p["commitment"]}
    elif event_type == "DrandRoundNamed":
        text = (f"drand round {p['round']} of {p['chain']} is named for the decks: "
                "nobody knows its value yet.")  # fmt: skip
        facts = {"round": p["round"], "chain": p["chain"]}
    elif event_type == "DrandFallback":
        text = (f"Dealt without drand: round {p['round']} did not come in time "
                f"({p['reason']}); the decks use the server's and the seats' seeds.")  # fmt: skip
        facts = {"round": p["round"], "reason": p["reason"]}
    else:  # ServerSeedRevealed
        text = (f"The server reveals its seed: {p['server_seed']}. Anyone can check that "
                "its SHA-256 is the commitment and recompute every deck.")  # fmt: skip
        facts = {"server_seed": p["server_seed"]}
    return {
        "id": f"e:{stream}:{version}",
        "kind": "table",
        "event": event_type,
        "player": None,
        "name": None,
        "text": text,
        "at_ms": p.get("at_ms"),
        "facts": facts,
    }
