"""Settings from environment variables: one frozen value, read once at start.

Every variable is listed in :data:`VARIABLES` (name, default, meaning); the table of
docs/configuration.md is this list. A bad value raises :class:`SettingsError` naming the
variable, what it holds and what it must be.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final
from urllib.parse import unquote, urlsplit

from fairdeal.chains import DEFAULT_RELAYS as DEFAULT_DRAND_RELAYS
from fairdeal.fairness import MAX_SEED_WINDOW_MS
from translog import TranslogError, parse_skey, parse_vkey
from translog.note import COSIGNATURE_TYPE, ED25519_TYPE, is_valid_name

SERVICES: Final = ("gateway", "verify", "table", "randomness", "tournament", "rating", "relay")
#: The database roles ``belot db setup`` makes besides the owner: one per service (the
#: relay's serves ``belot serve relay`` and ``belot log relay`` alike).
DB_ROLES: Final = ("table", "randomness", "gateway", "tournament", "rating", "verify", "relay")

#: Values that are not secrets: the placeholders of documentation and deployment files,
#: and defaults earlier versions shipped. Compared without case; the prefixes match the
#: start of a value.
PLACEHOLDER_PREFIXES: Final = ("change-me", "changeme", "change_me", "secret", "password",
                               "example")  # fmt: skip
OLD_DEFAULTS: Final = frozenset(
    {"change-me-in-production", "belot", *(f"compose-{u}" for u in (*DB_ROLES, "owner"))}
)

VARIABLES: Final[tuple[tuple[str, str, str], ...]] = (
    ("BELOT_PG_DSN", "(unset)", "PostgreSQL URL; unset: start the embedded PostgreSQL"),
    (
        "BELOT_NATS_URL",
        "(unset)",
        "NATS URL, nats://user:password@host:4222 with a user (comma-separated for a "
        "cluster); unset: start the embedded nats-server",
    ),
    ("BELOT_DATA_DIR", "./.belot", "where the embedded servers keep their data"),
    ("BELOT_PG_SCHEMA", "eventlog", "schema of the event log"),
    (
        "BELOT_PG_APP_ROLE",
        "(unset)",
        "role granted read+append only on the log (by a service that owns it; belot db "
        "setup's roles need none)",
    ),
    (
        "BELOT_PG_ROLE_PREFIX",
        "belot",
        "first part of the database roles belot db setup makes and belot run uses "
        "(belot_owner, belot_table, ...; see docs/database-roles.md)",
    ),
    (
        "BELOT_PG_<ROLE>_PASSWORD",
        "(unset)",
        "the password belot db setup gives role <ROLE> (OWNER, TABLE, RANDOMNESS, GATEWAY, "
        "TOURNAMENT, RATING, VERIFY, RELAY); unset: left as it is (a new role has none; "
        "the owner then cannot log in); belot run: a random one per run",
    ),
    ("BELOT_PG_POOL_MAX", "10", "connections per service pool"),
    ("BELOT_EMBEDDED_PG_PORT", "54329", "embedded PostgreSQL port (0: any free port)"),
    ("BELOT_EMBEDDED_NATS_PORT", "42229", "embedded nats-server port (0: any free port)"),
    ("BELOT_EMBEDDED_PG_USER", "belot-postgres", "OS user for embedded PostgreSQL under root"),
    ("BELOT_EVENTS_STREAM", "BELOT_EVENTS", "JetStream stream the outbox relay fills"),
    ("BELOT_EVENTS_SUBJECT", "belot.events", "subject prefix of relayed events"),
    ("BELOT_NATS_TIMEOUT", "2.0", "request/reply timeout, seconds"),
    ("BELOT_HTTP_HOST", "127.0.0.1", "address the services' HTTP servers bind"),
    *(
        (f"BELOT_{s.upper()}_PORT", str(p), f"HTTP port of the {s} service")
        for s, p in zip(SERVICES, (8080, 8081, 8090, 8091, 8092, 8093, 8094), strict=True)
    ),
    ("BELOT_LOG_LEVEL", "INFO", "DEBUG, INFO, WARNING or ERROR"),
    ("BELOT_LOG_FORMAT", "json", "json (one object a line) or text"),
    ("BELOT_SHUTDOWN_TIMEOUT", "10", "seconds to finish in-flight work on SIGTERM"),
    (
        "BELOT_DRAND_URLS",
        "the League of Entropy relays",
        "comma-separated drand HTTP relays (api.drand.sh, api2/api3.drand.sh, "
        "drand.cloudflare.com, api.drand.secureweb3.com:6875), for the decks and the "
        "tournaments' draws",
    ),
    (
        "BELOT_DRAND_CHAIN",
        "quicknet",
        "drand chain the decks use: quicknet or default (draws use quicknet)",
    ),
    ("BELOT_SEED_WINDOW", "20", "seconds the seats have to send their seeds (at most 600)"),
    (
        "BELOT_RANDOMNESS_SCHEMA",
        "randomness",
        "schema of the randomness service's server seeds (no other role may read it)",
    ),
    (
        "BELOT_RATING_SCHEMA",
        "rating",
        "schema of the rating service's tables (checkpoint, projection)",
    ),
    (
        "BELOT_SUBJECT_PREFIX",
        "belot",
        "first token of the services' NATS subjects and KV bucket names (belot.table.create, "
        "belot_table_leases, ...)",
    ),
    ("BELOT_TURN_SECONDS", "30", "a table's default turn timer, seconds (a table may set its own)"),
    (
        "BELOT_AUTOPLAY_AFTER",
        "2",
        "a table's default number of a seat's turns in a row the timer plays before a bot "
        "plays the seat until its player takes it back (a table may set its own; 0: never)",
    ),
    (
        "BELOT_PRESENCE_SECONDS",
        "2",
        "how often a gateway tells the tables which of their players have a socket open; "
        "a player whose gateway stopped telling is disconnected after 2.5 times this",
    ),
    (
        "BELOT_PLAY_NOW_WAIT",
        "20",
        "seconds a table opened by 'play now' keeps its bots' seats open to humans before "
        "its match starts (sooner when every seat is a human's); more than 0, at most 600",
    ),
    (
        "BELOT_LEASE_TTL",
        "10",
        "seconds a table worker's lease on a table lives without a heartbeat (renewed every "
        "third of it)",
    ),
    ("BELOT_GATEWAY_SCHEMA", "gateway", "schema of the gateway's accounts table"),
    ("BELOT_VERIFY_SCHEMA", "verify", "schema of the verify service's finished-matches table"),
    (
        "BELOT_VERIFY_READ_DSN",
        "(unset)",
        "PostgreSQL URL the verify API reads through (a replica: CloudNativePG's -ro "
        "Service), as the verify role; its projection, signer and witness intake keep "
        "BELOT_PG_DSN; unset: every read goes to BELOT_PG_DSN",
    ),
    (
        "BELOT_TOKEN_SECRET",
        "(unset)",
        "the gateway's token signing key (16+ characters, no placeholder such as change-me: "
        "openssl rand -hex 32); unset: generated at first start and kept in "
        "BELOT_DATA_DIR/gateway-token-secret (mode 0600)",
    ),
    (
        "BELOT_TOKEN_SECRET_PREVIOUS",
        "(unset)",
        "a former BELOT_TOKEN_SECRET whose tokens are still accepted (never used to sign), "
        "so that a rotation ends no session",
    ),
    ("BELOT_TOKEN_TTL", "86400", "seconds a gateway bearer token is valid"),
    ("BELOT_RATE_PER_SECOND", "20", "gateway requests a token may make per second, sustained"),
    ("BELOT_RATE_BURST", "40", "gateway requests a token may make at once (bucket size)"),
    (
        "BELOT_GATEWAY_MAX_SOCKETS",
        "5000",
        "player WebSockets one gateway keeps open at once; past it a new one is closed at "
        "once with code 1013 (try again later), the open ones untouched",
    ),
    (
        "BELOT_STATUS_TARGETS",
        "(unset)",
        "services the gateway's /status page scrapes, as name=host:port,...; unset: each "
        "service's port on BELOT_HTTP_HOST (belot run sets it to every process)",
    ),
    (
        "BELOT_PROMETHEUS_URL",
        "(unset)",
        "a Prometheus that loads deploy/prometheus/alerts.yml (http://prometheus:9090): the "
        "/status page shows its alert states; unset: the page judges the same rules from the "
        "services' /metrics itself (docs/alerts.md)",
    ),
    (
        "BELOT_WEB_DIR",
        "(unset)",
        "the web client's files the gateway serves at /; unset: the repository's web/",
    ),
    (
        "BELOT_VERIFY_URL",
        "(unset)",
        "the verify API's address as browsers reach it (the replay page and the in-tab "
        "check call it); unset: the page's host on BELOT_VERIFY_PORT",
    ),
    (
        "BELOT_TOURNAMENT_SCHEMA",
        "tournament",
        "schema of the tournament service's tables (list, table map, checkpoint)",
    ),
    (
        "BELOT_ADMIN_TOKEN",
        "(unset)",
        "a bearer token (16+ characters) the gateway accepts as an operator's: may run any "
        "tournament; unset: only a tournament's creator runs it",
    ),
    (
        "BELOT_TRANSLOG_ORIGIN",
        "belot.localhost/log",
        "the transparency log's name: the first line of its checkpoints and the name of "
        "its key (a host and path, no spaces or '+')",
    ),
    (
        "BELOT_TRANSLOG_KEY",
        "(unset)",
        "the log's signing key as Go's note skey (PRIVATE+KEY+<origin>+<id>+<key>), held by "
        "the verify service only; unset: made at first start and kept in "
        "BELOT_DATA_DIR/translog-key (mode 0600); belot log keygen makes one",
    ),
    (
        "BELOT_TRANSLOG_VKEY",
        "(unset)",
        "the log's public key (<origin>+<id>+<key>, as belot log keygen prints it) that the "
        "gateway tells the web client, whose tab pins it and checks the log with it; unset: "
        "BELOT_TRANSLOG_KEY's, else the one the verify service keeps beside its key in "
        "BELOT_DATA_DIR/translog-vkey (belot run), else none",
    ),
    (
        "BELOT_TRANSLOG_KEY_FILE",
        "(unset)",
        "a file holding BELOT_TRANSLOG_KEY (a mounted Secret: the key stays out of the "
        "environment), read at start; not both",
    ),
    (
        "BELOT_TRANSLOG_INTERVAL",
        "1",
        "seconds between two looks at the log's size: a checkpoint is signed whenever it grew",
    ),
    (
        "BELOT_TRANSLOG_WITNESSES",
        "(unset)",
        "the witnesses whose cosignatures the log accepts and serves, as comma-separated "
        "vkeys (<name>+<id>+<key>, from belot witness keygen); unset: none (belot run adds "
        "the witness it starts; docker compose and the k8s manifests require them)",
    ),
    (
        "BELOT_TRANSLOG_MAX_WITNESSES",
        "64",
        "witnesses that may register themselves (POST /v1/log/witnesses) besides the "
        "configured ones; 0: registration closed",
    ),
    (
        "BELOT_TRANSLOG_WITNESS_TTL",
        "86400",
        "seconds a registered witness that has cosigned stays registered without renewing "
        "(registering again, or a cosignature)",
    ),
    (
        "BELOT_TRANSLOG_WITNESS_TTL_NEW",
        "600",
        "seconds a registered witness key that has never cosigned stays registered",
    ),
    (
        "BELOT_TRANSLOG_WITNESSES_PER_ADDRESS",
        "4",
        "live witness registrations one client address may hold (IPv6: one /64)",
    ),
)

#: The log's public key, which the verify service writes beside the key it keeps in
#: BELOT_DATA_DIR (a gateway sharing the directory tells the web client: the tab pins it).
TRANSLOG_VKEY_FILE: Final = "translog-vkey"

_DEFAULT_PORTS: Final = dict(zip(SERVICES, (8080, 8081, 8090, 8091, 8092, 8093, 8094), strict=True))
_NAME_RE: Final = re.compile(r"[a-z_][a-z0-9_]{0,50}")
_ROLE_PREFIX_RE: Final = re.compile(r"[a-z_][a-z0-9_]{0,39}")
GOOD_SECRET: Final = "make one with: openssl rand -hex 32"
#: nats-server reads a value that looks like a number as one: start with a letter.
GOOD_NATS_PASSWORD: Final = "make one with: openssl rand -hex 24 | sed 's/^/p/'"
_LEVELS: Final = ("DEBUG", "INFO", "WARNING", "ERROR")


class SettingsError(ValueError):
    """An environment variable with a value that cannot be used."""


@dataclass(frozen=True, slots=True)
class Settings:
    # Every field that can hold a secret (a URL with a password, a password, a key or a
    # token) is left out of the repr: a settings object that reaches a log line or a
    # traceback does not carry it there (tests/unit/test_platform_settings.py).
    pg_dsn: str | None = field(default=None, repr=False)
    nats_url: str | None = field(default=None, repr=False)
    data_dir: Path = Path(".belot")
    pg_schema: str = "eventlog"
    pg_app_role: str | None = None
    pg_role_prefix: str = "belot"
    #: BELOT_PG_<ROLE>_PASSWORD, by lower-case role ("owner", "table", ...): set ones only.
    pg_passwords: Mapping[str, str] = field(default_factory=dict, repr=False)
    pg_pool_max: int = 10
    embedded_pg_port: int = 54329
    embedded_nats_port: int = 42229
    embedded_pg_user: str = "belot-postgres"
    events_stream: str = "BELOT_EVENTS"
    events_subject: str = "belot.events"
    nats_timeout: float = 2.0
    http_host: str = "127.0.0.1"
    ports: Mapping[str, int] = field(default_factory=lambda: dict(_DEFAULT_PORTS))
    log_level: str = "INFO"
    log_format: str = "json"
    shutdown_timeout: float = 10.0
    drand_urls: tuple[str, ...] = DEFAULT_DRAND_RELAYS
    drand_chain: str = "quicknet"
    seed_window: float = 20.0
    randomness_schema: str = "randomness"
    rating_schema: str = "rating"
    subject_prefix: str = "belot"
    turn_seconds: float = 30.0
    autoplay_after: int = 2
    presence_seconds: float = 2.0
    #: BELOT_PLAY_NOW_WAIT: seconds a "play now" table waits for humans in the bots' seats.
    play_now_wait: float = 20.0
    lease_ttl: float = 10.0
    gateway_schema: str = "gateway"
    verify_schema: str = "verify"
    #: BELOT_VERIFY_READ_DSN.
    verify_read_dsn: str | None = field(default=None, repr=False)
    token_secret: str | None = field(default=None, repr=False)
    token_secret_previous: str | None = field(default=None, repr=False)
    token_ttl: int = 86_400
    rate_per_second: float = 20.0
    rate_burst: int = 40
    gateway_max_sockets: int = 5_000
    status_targets: str | None = None
    prometheus_url: str | None = None
    web_dir: Path | None = None
    verify_url: str | None = None
    tournament_schema: str = "tournament"
    admin_token: str | None = field(default=None, repr=False)
    translog_origin: str = "belot.localhost/log"
    translog_key: str | None = field(default=None, repr=False)
    translog_vkey: str | None = None
    translog_interval: float = 1.0
    translog_witnesses: tuple[str, ...] = ()
    translog_max_witnesses: int = 64
    translog_witness_ttl: int = 86_400
    translog_witness_ttl_new: int = 600
    translog_witnesses_per_address: int = 4
    #: Finished matches the verify service's analysis job analyses at once (0: no job).
    verify_analysis_workers: int = 1

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read the ``BELOT_*`` variables; raises :class:`SettingsError`."""
        env = os.environ if environ is None else environ

        def get(name: str) -> str | None:
            value = env.get(name)
            return value.strip() if value is not None and value.strip() else None

        def port(name: str, default: int) -> int:
            return _int(name, get(name), default, 0, 65535)

        def schema_name(name: str, default: str) -> str:
            value = get(name) or default
            if _NAME_RE.fullmatch(value) is None:
                raise SettingsError(
                    f"{name}={value!r}: lower-case letters, digits and '_', at most 51"
                )
            return value

        def secret(name: str) -> str | None:
            value = get(name)
            refuse_placeholder(name, value)
            if value is not None and len(value) < 16:
                raise SettingsError(f"{name}: at least 16 characters ({GOOD_SECRET})")
            return value

        def pg_url(name: str) -> str | None:
            value = get(name)
            if value is not None and not value.startswith(("postgresql://", "postgres://")):
                raise SettingsError(f"{name}={redact(value)!r}: must start with postgresql://")
            if value is not None:
                refuse_placeholder(name, url_password(value), what="the password")
            return value

        pg_dsn = pg_url("BELOT_PG_DSN")
        verify_read_dsn = pg_url("BELOT_VERIFY_READ_DSN")
        nats_url = get("BELOT_NATS_URL")
        if nats_url is not None and not all(
            u.strip().startswith(("nats://", "tls://", "ws://", "wss://"))
            for u in nats_url.split(",")
        ):
            raise SettingsError(
                f"BELOT_NATS_URL={redact(nats_url)!r}: must be nats://host:port or "
                "nats://user:password@host:port (comma-separated list)"
            )
        if nats_url is not None:
            for server in nats_url.split(","):
                refuse_placeholder(
                    "BELOT_NATS_URL",
                    url_password(server),
                    what="a password",
                    good=GOOD_NATS_PASSWORD,
                )
        role_prefix = get("BELOT_PG_ROLE_PREFIX") or "belot"
        if _ROLE_PREFIX_RE.fullmatch(role_prefix) is None:
            raise SettingsError(
                f"BELOT_PG_ROLE_PREFIX={role_prefix!r}: lower-case letters, digits and '_', "
                "at most 40, not starting with a digit"
            )
        pg_passwords: dict[str, str] = {}
        for role in ("owner", *DB_ROLES):
            name = f"BELOT_PG_{role.upper()}_PASSWORD"
            value = get(name)
            if value is None:
                continue
            refuse_placeholder(name, value)
            if len(value) < 16:
                raise SettingsError(f"{name}: at least 16 characters ({GOOD_SECRET})")
            pg_passwords[role] = value
        schema = schema_name("BELOT_PG_SCHEMA", "eventlog")
        rating_schema = schema_name("BELOT_RATING_SCHEMA", "rating")
        level = (get("BELOT_LOG_LEVEL") or "INFO").upper()
        if level not in _LEVELS:
            raise SettingsError(f"BELOT_LOG_LEVEL={level!r}: must be one of {', '.join(_LEVELS)}")
        fmt = (get("BELOT_LOG_FORMAT") or "json").lower()
        if fmt not in ("json", "text"):
            raise SettingsError(f"BELOT_LOG_FORMAT={fmt!r}: must be json or text")
        subject = get("BELOT_EVENTS_SUBJECT") or "belot.events"
        if not re.fullmatch(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*", subject):
            raise SettingsError(f"BELOT_EVENTS_SUBJECT={subject!r}: dot-separated tokens")
        stream = get("BELOT_EVENTS_STREAM") or "BELOT_EVENTS"
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", stream):
            raise SettingsError(f"BELOT_EVENTS_STREAM={stream!r}: letters, digits, '_', '-'")
        drand_urls: tuple[str, ...] = DEFAULT_DRAND_RELAYS
        if (urls := get("BELOT_DRAND_URLS")) is not None:
            drand_urls = tuple(u.strip().rstrip("/") for u in urls.split(",") if u.strip())
            bad = [u for u in drand_urls if not u.startswith(("http://", "https://"))]
            if bad or not drand_urls:
                raise SettingsError(
                    f"BELOT_DRAND_URLS={urls!r}: comma-separated http:// or https:// URLs"
                )
        chain = (get("BELOT_DRAND_CHAIN") or "quicknet").lower()
        if chain not in ("quicknet", "default"):
            raise SettingsError(f"BELOT_DRAND_CHAIN={chain!r}: must be quicknet or default")
        prefix = get("BELOT_SUBJECT_PREFIX") or "belot"
        if not re.fullmatch(r"[A-Za-z0-9_]{1,32}", prefix):
            raise SettingsError(
                f"BELOT_SUBJECT_PREFIX={prefix!r}: one token of letters, digits and '_' (1-32)"
            )
        gateway_schema = schema_name("BELOT_GATEWAY_SCHEMA", "gateway")
        randomness_schema = schema_name("BELOT_RANDOMNESS_SCHEMA", "randomness")
        verify_schema = schema_name("BELOT_VERIFY_SCHEMA", "verify")
        verify_url = get("BELOT_VERIFY_URL")
        if verify_url is not None:
            verify_url = verify_url.rstrip("/")
            if not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", verify_url):
                raise SettingsError(
                    f"BELOT_VERIFY_URL={verify_url!r}: an http:// or https:// URL, no query"
                )
        prometheus_url = _http_url("BELOT_PROMETHEUS_URL", get("BELOT_PROMETHEUS_URL"))
        web_dir = get("BELOT_WEB_DIR")
        tournament_schema = schema_name("BELOT_TOURNAMENT_SCHEMA", "tournament")
        admin_token = secret("BELOT_ADMIN_TOKEN")
        token_secret = secret("BELOT_TOKEN_SECRET")
        token_secret_previous = secret("BELOT_TOKEN_SECRET_PREVIOUS")
        origin = get("BELOT_TRANSLOG_ORIGIN") or "belot.localhost/log"
        if not is_valid_name(origin):
            raise SettingsError(
                f"BELOT_TRANSLOG_ORIGIN={origin!r}: a key name (no spaces, no '+', not empty)"
            )
        translog_key = get("BELOT_TRANSLOG_KEY")
        key_from = "BELOT_TRANSLOG_KEY"
        if (key_file := get("BELOT_TRANSLOG_KEY_FILE")) is not None:
            if translog_key is not None:
                raise SettingsError(
                    "BELOT_TRANSLOG_KEY and BELOT_TRANSLOG_KEY_FILE are both set: give one"
                )
            translog_key, key_from = _read_key_file(key_file), f"BELOT_TRANSLOG_KEY_FILE={key_file}"
        if translog_key is not None:
            refuse_placeholder(
                key_from,
                translog_key,
                what="the key",
                good=f"make one with: belot log keygen {origin} --key FILE",
            )
            _check_log_key(translog_key, origin)
        translog_vkey = get("BELOT_TRANSLOG_VKEY")
        if translog_vkey is not None:
            _check_log_vkey(translog_vkey, origin, translog_key)
        witnesses = tuple(
            w.strip() for w in (get("BELOT_TRANSLOG_WITNESSES") or "").split(",") if w.strip()
        )
        for vkey in witnesses:
            _check_witness_key(vkey)
        return cls(
            pg_dsn=pg_dsn,
            nats_url=nats_url,
            data_dir=Path(get("BELOT_DATA_DIR") or ".belot"),
            pg_schema=schema,
            pg_app_role=get("BELOT_PG_APP_ROLE"),
            pg_role_prefix=role_prefix,
            pg_passwords=pg_passwords,
            pg_pool_max=_int("BELOT_PG_POOL_MAX", get("BELOT_PG_POOL_MAX"), 10, 1, 1000),
            embedded_pg_port=port("BELOT_EMBEDDED_PG_PORT", 54329),
            embedded_nats_port=port("BELOT_EMBEDDED_NATS_PORT", 42229),
            embedded_pg_user=get("BELOT_EMBEDDED_PG_USER") or "belot-postgres",
            events_stream=stream,
            events_subject=subject,
            nats_timeout=_float("BELOT_NATS_TIMEOUT", get("BELOT_NATS_TIMEOUT"), 2.0),
            http_host=get("BELOT_HTTP_HOST") or "127.0.0.1",
            ports={s: port(f"BELOT_{s.upper()}_PORT", p) for s, p in _DEFAULT_PORTS.items()},
            log_level=level,
            log_format=fmt,
            shutdown_timeout=_float("BELOT_SHUTDOWN_TIMEOUT", get("BELOT_SHUTDOWN_TIMEOUT"), 10.0),
            drand_urls=drand_urls,
            drand_chain=chain,
            # A commitment may fix a window of at most MAX_SEED_WINDOW_MS: the verifier
            # refuses longer ones (they leave more rounds to wait for).
            seed_window=_float(
                "BELOT_SEED_WINDOW", get("BELOT_SEED_WINDOW"), 20.0, MAX_SEED_WINDOW_MS / 1000
            ),
            randomness_schema=randomness_schema,
            rating_schema=rating_schema,
            subject_prefix=prefix,
            turn_seconds=_float("BELOT_TURN_SECONDS", get("BELOT_TURN_SECONDS"), 30.0),
            autoplay_after=_int("BELOT_AUTOPLAY_AFTER", get("BELOT_AUTOPLAY_AFTER"), 2, 0, 20),
            presence_seconds=_float(
                "BELOT_PRESENCE_SECONDS", get("BELOT_PRESENCE_SECONDS"), 2.0, 60.0
            ),
            play_now_wait=_float("BELOT_PLAY_NOW_WAIT", get("BELOT_PLAY_NOW_WAIT"), 20.0, 600.0),
            lease_ttl=_float("BELOT_LEASE_TTL", get("BELOT_LEASE_TTL"), 10.0),
            gateway_schema=gateway_schema,
            verify_schema=verify_schema,
            verify_read_dsn=verify_read_dsn,
            token_secret=token_secret,
            token_secret_previous=token_secret_previous,
            token_ttl=_int("BELOT_TOKEN_TTL", get("BELOT_TOKEN_TTL"), 86_400, 60, 10**8),
            rate_per_second=_rate("BELOT_RATE_PER_SECOND", get("BELOT_RATE_PER_SECOND"), 20.0),
            rate_burst=_int("BELOT_RATE_BURST", get("BELOT_RATE_BURST"), 40, 1, 10**6),
            gateway_max_sockets=_int(
                "BELOT_GATEWAY_MAX_SOCKETS", get("BELOT_GATEWAY_MAX_SOCKETS"), 5_000, 1, 10**6
            ),
            status_targets=get("BELOT_STATUS_TARGETS"),
            prometheus_url=prometheus_url,
            web_dir=None if web_dir is None else Path(web_dir),
            verify_url=verify_url,
            tournament_schema=tournament_schema,
            admin_token=admin_token,
            translog_origin=origin,
            translog_key=translog_key,
            translog_vkey=translog_vkey,
            translog_interval=_float(
                "BELOT_TRANSLOG_INTERVAL", get("BELOT_TRANSLOG_INTERVAL"), 1.0, 60.0
            ),
            verify_analysis_workers=_int(
                "BELOT_VERIFY_ANALYSIS_WORKERS", get("BELOT_VERIFY_ANALYSIS_WORKERS"), 1, 0, 64
            ),
            translog_witnesses=witnesses,
            translog_max_witnesses=_int(
                "BELOT_TRANSLOG_MAX_WITNESSES", get("BELOT_TRANSLOG_MAX_WITNESSES"), 64, 0, 10_000
            ),
            translog_witness_ttl=_int(
                "BELOT_TRANSLOG_WITNESS_TTL", get("BELOT_TRANSLOG_WITNESS_TTL"),
                86_400, 60, 30 * 86_400,
            ),
            translog_witness_ttl_new=_int(
                "BELOT_TRANSLOG_WITNESS_TTL_NEW", get("BELOT_TRANSLOG_WITNESS_TTL_NEW"),
                600, 10, 86_400,
            ),
            translog_witnesses_per_address=_int(
                "BELOT_TRANSLOG_WITNESSES_PER_ADDRESS", get("BELOT_TRANSLOG_WITNESSES_PER_ADDRESS"),
                4, 1, 10_000,
            ),
        )  # fmt: skip

    def with_servers(self, pg_dsn: str, nats_url: str) -> Settings:
        """These settings with the server URLs filled in (after the embedded stack starts)."""
        return replace(self, pg_dsn=pg_dsn, nats_url=nats_url)

    def port(self, service: str) -> int:
        """The HTTP port of ``service``; raises KeyError for an unknown service."""
        return self.ports[service]


def _check_log_key(skey: str, origin: str) -> None:
    """The log's key: an Ed25519 note skey named as the origin (never echoed: a secret)."""
    try:
        signer = parse_skey(skey)
    except TranslogError as exc:
        raise SettingsError(f"BELOT_TRANSLOG_KEY: not a note signing key ({exc.message})") from None
    if signer.signature_type != ED25519_TYPE:
        raise SettingsError("BELOT_TRANSLOG_KEY: an Ed25519 note key (type 0x01), not a witness's")
    if signer.name != origin:
        raise SettingsError(
            f"BELOT_TRANSLOG_KEY is named {signer.name!r}: the log's key is named as its origin "
            f"(BELOT_TRANSLOG_ORIGIN={origin!r})"
        )


def _check_log_vkey(vkey: str, origin: str, skey: str | None) -> None:
    """The log's public key: an Ed25519 note vkey named as the origin, and the public half
    of BELOT_TRANSLOG_KEY when both are set."""
    try:
        verifier = parse_vkey(vkey)
    except TranslogError as exc:
        raise SettingsError(f"BELOT_TRANSLOG_VKEY={vkey!r}: {exc.message}") from None
    if verifier.signature_type != ED25519_TYPE:
        raise SettingsError(
            f"BELOT_TRANSLOG_VKEY={vkey!r}: an Ed25519 note key (type 0x01), not a witness's"
        )
    if verifier.name != origin:
        raise SettingsError(
            f"BELOT_TRANSLOG_VKEY is named {verifier.name!r}: the log's key is named as its "
            f"origin (BELOT_TRANSLOG_ORIGIN={origin!r})"
        )
    if skey is not None and parse_skey(skey).vkey != vkey:
        raise SettingsError("BELOT_TRANSLOG_VKEY is not the public key of BELOT_TRANSLOG_KEY")


def _read_key_file(path: str) -> str:
    """The log's key from ``BELOT_TRANSLOG_KEY_FILE`` (its text, stripped)."""
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise SettingsError(
            f"BELOT_TRANSLOG_KEY_FILE={path!r}: cannot read it ({reason})"
        ) from None


def _check_witness_key(vkey: str) -> None:
    if is_placeholder(vkey):
        raise SettingsError(
            f"BELOT_TRANSLOG_WITNESSES: {vkey!r} is a placeholder: name the vkeys of the "
            "witnesses watching this log (belot witness keygen)"
        )
    try:
        verifier = parse_vkey(vkey)
    except TranslogError as exc:
        raise SettingsError(f"BELOT_TRANSLOG_WITNESSES: {vkey!r}: {exc.message}") from None
    if verifier.signature_type != COSIGNATURE_TYPE:
        raise SettingsError(
            f"BELOT_TRANSLOG_WITNESSES: {vkey!r} is not a witness's cosignature key (type 0x04)"
        )


def is_placeholder(value: str) -> bool:
    """Is ``value`` a well-known placeholder or an old shipped default (not a secret)?"""
    low = value.strip().lower()
    return low.startswith(PLACEHOLDER_PREFIXES) or low in OLD_DEFAULTS


def refuse_placeholder(
    name: str, value: str | None, *, what: str = "its value", good: str = GOOD_SECRET
) -> None:
    """Raise :class:`SettingsError` if ``value`` is a placeholder: a secret everyone can
    read in the deployment files is no secret (a token forged with it reads another
    player's hand). The message names only the public pattern matched, never the value."""
    if value is None or not is_placeholder(value):
        return
    low = value.strip().lower()
    prefix = next((p for p in PLACEHOLDER_PREFIXES if low.startswith(p)), None)
    why = f"starts with {prefix!r}" if prefix else "is a default an earlier version shipped"
    raise SettingsError(f"{name}: {what} {why}, a well-known placeholder, not a secret; {good}")


def url_password(url: str) -> str | None:
    """The percent-decoded password of one ``scheme://user:password@host`` URL, if any."""
    try:
        password = urlsplit(url.strip()).password
    except ValueError:
        return None
    return None if password is None else unquote(password)


def redact(urls: str) -> str:
    """``urls`` with each password replaced by ``***`` (error messages end up in logs)."""
    return re.sub(r"(//[^:/@,]*:)[^@,]*@", r"\1***@", urls)


#: The longest URL a setting may hold (an address, not a document).
MAX_URL_LENGTH: Final = 2000


def _http_url(name: str, text: str | None) -> str | None:
    """An http:// or https:// URL with a host, no query or fragment, no trailing '/'."""
    if text is None:
        return None
    url = text.rstrip("/")
    if len(url) > MAX_URL_LENGTH or not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", url):
        raise SettingsError(
            f"{name}={redact(url[:100])!r}: an http:// or https:// URL, no query, at most "
            f"{MAX_URL_LENGTH} characters"
        )
    return url


def _int(name: str, text: str | None, default: int, low: int, high: int) -> int:
    if text is None:
        return default
    try:
        value = int(text, 10)
    except ValueError:
        raise SettingsError(f"{name}={text!r}: must be a whole number") from None
    if not low <= value <= high:
        raise SettingsError(f"{name}={value}: must be in {low}..{high}")
    return value


#: The most requests a second a gateway rate may allow (beyond, there is no limit).
MAX_RATE: Final = 1_000_000


def _rate(name: str, text: str | None, default: float) -> float:
    """A rate: a number of requests a second, more than 0 and at most MAX_RATE (not
    seconds, which _float reads)."""
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        raise SettingsError(f"{name}={text!r}: must be a number of requests a second") from None
    if not 0 < value <= MAX_RATE:
        raise SettingsError(
            f"{name}={value}: must be a number of requests a second, more than 0 and at most "
            f"{MAX_RATE:,}"
        )
    return value


def _float(name: str, text: str | None, default: float, at_most: float | None = None) -> float:
    """Seconds: more than 0 and less than an hour, or at most ``at_most``."""
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        raise SettingsError(f"{name}={text!r}: must be a number of seconds") from None
    if at_most is not None and not 0 < value <= at_most:
        raise SettingsError(f"{name}={value}: must be more than 0 and at most {at_most:g} seconds")
    if not 0 < value < 3600:
        raise SettingsError(f"{name}={value}: must be between 0 and 3600 seconds")
    return value
