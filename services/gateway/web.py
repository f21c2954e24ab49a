"""The web client, served by the gateway: its files from ``web/`` and the two documents
the client asks for first (``/v1/config``, ``/v1/rulesets``).

The client is plain ES modules with no build step, so file names carry no content hash:
every answer says ``Cache-Control: no-cache`` with a strong ``ETag`` (SHA-256 of the
bytes), and a browser revalidates each file with ``If-None-Match`` (304, no body) instead
of ever running a stale module next to a fresh one. Files are read once and kept in
memory until their modification time or size changes.

Only ``index.html`` and the files under ``js/``, ``css/``, ``img/`` and ``vendor/`` (the
noble libraries, unmodified npm files: docs/web-drand.md) are served, with a known
extension; ``web/test/``, ``web/node/`` and anything else are 404. HTML pages carry a
Content Security Policy that allows scripts and styles from the gateway only (no CDN) and
connections to the gateway, the verify API and the drand relays the tab may ask for a
round: any https origin (the player may add relays of their own) and the configured
ones.

No inline script runs but the page's import map: the vendored modules import each other
by bare names (``@noble/hashes/sha2.js``), which only an import map resolves without
editing them, and a browser has no external import maps. Its SHA-256, computed from the
file as served, is the one hash source in ``script-src``; any other inline script, or an
edited map, is refused.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from aiohttp import web

from belot import RULESETS, deal_pattern
from belot.cards import RANKS
from belot.ruleset import Ruleset
from belot_platform.settings import TRANSLOG_VKEY_FILE, Settings
from translog import TranslogError, parse_skey, parse_vkey

#: The repository's ``web/`` beside ``services/`` (BELOT_WEB_DIR overrides it).
DEFAULT_WEB_DIR: Final = Path(__file__).resolve().parents[2] / "web"

CONTENT_TYPES: Final = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".json": "application/json",
}
#: Directories of ``web/`` whose files are served (``web/test`` and ``web/node`` are not).
SERVED_DIRS: Final = ("js", "css", "img", "vendor")
#: A path segment: no dot first (no ``..``, no hidden file); ``@`` only first (``@noble``).
_NAME_RE: Final = re.compile(r"@?[A-Za-z0-9_][A-Za-z0-9_.\-]*")
#: An inline import map: ``<script type="importmap">`` with no other attribute.
_IMPORT_MAP_RE: Final = re.compile(
    r"""<script\s+type\s*=\s*(["']?)importmap\1\s*>(.*?)</script\s*>""", re.DOTALL | re.IGNORECASE
)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True, slots=True)
class StaticFile:
    body: bytes
    etag: str
    content_type: str
    mtime_ns: int
    size: int
    #: CSP hash sources ('sha256-…') of the page's inline import maps (HTML only).
    script_hashes: tuple[str, ...] = ()


def import_map_hashes(html: str) -> tuple[str, ...]:
    """The CSP hash sources of a page's inline import maps, and of nothing else inline.

    A browser hashes the element's text as parsed, and HTML parsing turns CR LF and CR
    into LF: the same is done here before hashing."""
    out = []
    for m in _IMPORT_MAP_RE.finditer(html):
        text = m.group(2).replace("\r\n", "\n").replace("\r", "\n")
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        out.append(f"'sha256-{digest}'")
    return tuple(out)


class StaticSite:
    """The files of the web client under ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._cache: dict[Path, StaticFile] = {}

    def resolve(self, path: str) -> Path | None:
        """The file a URL path names, or None when it is not one we serve."""
        if path in ("", "/"):
            path = "/index.html"
        parts = path.lstrip("/").split("/")
        if not all(_NAME_RE.fullmatch(p) for p in parts):
            return None
        if len(parts) == 1:
            if parts[0] != "index.html":
                return None
        elif parts[0] not in SERVED_DIRS:
            return None
        if Path(parts[-1]).suffix not in CONTENT_TYPES:
            return None
        candidate = self.root.joinpath(*parts).resolve()
        if not candidate.is_relative_to(self.root) or not candidate.is_file():
            return None
        return candidate

    def load(self, file: Path) -> StaticFile:
        stat = file.stat()
        hit = self._cache.get(file)
        if hit is not None and (hit.mtime_ns, hit.size) == (stat.st_mtime_ns, stat.st_size):
            return hit
        body = file.read_bytes()
        content_type = CONTENT_TYPES[file.suffix]
        html = content_type.startswith("text/html")
        loaded = StaticFile(
            body=body,
            etag='"' + hashlib.sha256(body).hexdigest()[:32] + '"',
            content_type=content_type,
            mtime_ns=stat.st_mtime_ns,
            size=stat.st_size,
            script_hashes=import_map_hashes(body.decode("utf-8", "replace")) if html else (),
        )
        self._cache[file] = loaded
        return loaded


def verify_url(settings: Settings, request: web.Request) -> str:
    """The verify API as this browser reaches it: BELOT_VERIFY_URL, else the host the
    page came from on the verify service's port."""
    if settings.verify_url:
        return settings.verify_url
    host = request.url.host or settings.http_host
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 address
    return f"{request.scheme}://{host}:{settings.port('verify')}"


def _origin(url: str) -> str:
    m = re.match(r"(https?://[^/?#]+)", url)
    return m.group(1) if m else url


def content_security_policy(
    settings: Settings, request: web.Request, script_hashes: tuple[str, ...] = ()
) -> str:
    """The page's policy; ``script_hashes``: the inline scripts it may run (its import
    map's hash, see import_map_hashes)."""
    ws = ("wss://" if request.scheme == "https" else "ws://") + request.host
    connect = ["'self'", ws, _origin(verify_url(settings, request))]
    # The tab asks drand relays: its own defaults (web/js/drand.js DEFAULT_RELAYS), those
    # the player adds (localStorage "belot.drand.relays": any address they choose, so no
    # list here can name them) and the configured ones. So any https origin may be
    # fetched, and a configured relay that is plain http (development) by name.
    # Why that is safe: connect-src says where the page's own scripts may connect, and
    # script-src stays strict ('self' and the import map's hash: no inline script, no
    # other site's), so the only scripts that could use it are the ones this server
    # serves, which hold nothing (the session token, the kept matches) that the server
    # does not already have. Nothing a relay answers is run or trusted: a beacon is
    # believed only when its BLS signature verifies against the pinned key.
    connect.append("https:")
    connect += sorted({o for o in map(_origin, settings.drand_urls) if not o.startswith("https:")})
    return "; ".join(
        [
            "default-src 'self'",
            " ".join(["script-src 'self'", *script_hashes]),
            "style-src 'self'",
            "img-src 'self' data:",
            f"connect-src {' '.join(connect)}",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


def static_handler(site: StaticSite | None, settings: Settings) -> Handler:
    """GET (and HEAD) of the client's files; ``site`` None: there is no web directory."""

    async def handler(request: web.Request) -> web.StreamResponse:
        if site is None:
            raise web.HTTPNotFound(text="the web client is not installed here (BELOT_WEB_DIR)")
        file = site.resolve(request.path)
        if file is None:
            raise web.HTTPNotFound(text="no such file")
        loaded = site.load(file)
        headers = {
            "ETag": loaded.etag,
            "Cache-Control": "no-cache",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
        }
        if loaded.content_type.startswith("text/html"):
            headers["Content-Security-Policy"] = content_security_policy(
                settings, request, loaded.script_hashes
            )
        if loaded.etag in _etags(request.headers.get("If-None-Match", "")):
            return web.Response(status=304, headers=headers)
        headers["Content-Type"] = loaded.content_type
        return web.Response(body=loaded.body, headers=headers)

    return handler


def _etags(header: str) -> set[str]:
    return {t.strip().removeprefix("W/") for t in header.split(",") if t.strip()}


def log_vkey(settings: Settings) -> str | None:
    """The transparency log's public key for the web client: BELOT_TRANSLOG_VKEY, else
    BELOT_TRANSLOG_KEY's public half (``belot run`` gives every service one environment),
    else the one the verify service keeps beside its key in the data directory (it writes
    it at start: read on every request until it is there), else None. The gateway never
    reads the private key's file. Whatever it says, the tab pins the first key it is told
    and fails its log checks on another (web/js/logcheck.js): this is a first sight, not a
    trust."""
    if settings.translog_vkey is not None:
        return settings.translog_vkey
    if settings.translog_key is not None:
        return parse_skey(settings.translog_key).vkey
    try:
        text = (settings.data_dir / TRANSLOG_VKEY_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    try:
        verifier = parse_vkey(text)
    except TranslogError:
        return None
    return text if verifier.name == settings.translog_origin else None


def client_config(settings: Settings, request: web.Request) -> dict[str, Any]:
    """What the client needs to know of the platform: where the verify API is, which
    drand relays the tab may ask for a round (it pins the chains' hashes itself), and the
    transparency log's key (``translog``: null when the gateway knows none)."""
    vkey = log_vkey(settings)
    return {
        "verify_url": verify_url(settings, request),
        "drand": {"chain": settings.drand_chain, "relays": list(settings.drand_urls)},
        "translog": None if vkey is None else {"vkey": vkey, "origin": vkey.split("+", 1)[0]},
    }


def scoring_json(r: Ruleset) -> dict[str, Any]:
    """What the score sheet (web/js/sheet.js) needs to split a deal's points into card
    points, melds and belote as the game core counts them (belot.decide ``_deal_end``,
    belot.scoring): the meld table, the multiplier, the capot bonus, what the contract is
    judged on, and how hanging points behave. The sheet checks its split against each
    DealScored's totals, so a rule changed here and not there shows at once."""
    table = r.melds
    return {
        "tricks": r.tricks,
        "capot_bonus": r.capot_bonus,
        "no_trumps_multiplier": r.no_trumps_multiplier,
        "belote_in_contract": r.belote_in_contract,
        "melds_need_a_trick": r.melds_need_a_trick,
        "fours": None
        if table is None
        else {RANKS[i]: v for i, v in enumerate(table.four_of_a_kind) if v},
        "sequences": None
        if table is None
        else [table.sequence_3, table.sequence_4, table.sequence_5],
        "tie": r.tie.value,
        "hanging_accumulates": r.hanging_accumulates,
    }


def rulesets_json() -> dict[str, Any]:
    """The rulesets a table may have, with what the lobby and the in-tab check need:
    seats, deck size, default target, melds, and the published deal pattern; and what
    the score sheet needs (``scoring``)."""
    out = []
    for name, r in RULESETS.items():
        out.append(
            {
                "name": name,
                "players": r.players,
                "deck_size": r.deck_size,
                "target": r.target,
                "melds": r.melds is not None,
                "belote_points": r.belote_points,
                "belote_announce": r.belote_announce.value,
                "all_pass": r.all_pass.value,
                "second_round": sorted(s.name.lower() for s in r.second_round),
                "deal_pattern": deal_pattern(r).to_payload(),
                "scoring": scoring_json(r),
            }
        )
    return {"rulesets": out}
