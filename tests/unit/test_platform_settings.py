"""Settings from the environment: defaults, every variable documented, clear errors."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from belot_platform.logs import JsonFormatter, log_context
from belot_platform.settings import PLACEHOLDER_PREFIXES, VARIABLES, Settings, SettingsError

CONFIGURATION = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def test_defaults() -> None:
    s = Settings.from_env({})
    assert s.pg_dsn is None and s.nats_url is None
    assert s.data_dir == Path(".belot")
    assert s.embedded_pg_port == 54329 and s.embedded_nats_port == 42229
    assert s.port("gateway") == 8080 and s.pg_schema == "eventlog"


def test_values_are_read() -> None:
    s = Settings.from_env(
        {
            "BELOT_PG_DSN": "postgresql://u@h:5/db",
            "BELOT_NATS_URL": "nats://a:1,nats://b:2",
            "BELOT_VERIFY_PORT": "9000",
            "BELOT_LOG_LEVEL": "debug",
            "BELOT_DATA_DIR": "/tmp/x",
            "BELOT_WEB_DIR": "/srv/web",
            "BELOT_VERIFY_URL": "https://verify.example.org/",
            "BELOT_PROMETHEUS_URL": "http://prometheus:9090/",
            "BELOT_TOKEN_SECRET_PREVIOUS": "p" * 16,
        }
    )
    assert s.token_secret_previous == "p" * 16
    assert s.pg_dsn == "postgresql://u@h:5/db" and s.port("verify") == 9000
    assert s.log_level == "DEBUG" and s.data_dir == Path("/tmp/x")
    assert s.web_dir == Path("/srv/web") and s.verify_url == "https://verify.example.org"
    assert s.prometheus_url == "http://prometheus:9090"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("BELOT_PG_DSN", "mysql://x"),
        ("BELOT_NATS_URL", "http://x"),
        ("BELOT_GATEWAY_PORT", "http"),
        ("BELOT_GATEWAY_PORT", "70000"),
        ("BELOT_LOG_LEVEL", "LOUD"),
        ("BELOT_PG_SCHEMA", "Bad-Name"),
        ("BELOT_NATS_TIMEOUT", "soon"),
        ("BELOT_EVENTS_SUBJECT", "a..b"),
        ("BELOT_RATING_SCHEMA", "rating-projection"),
        ("BELOT_VERIFY_URL", "ftp://verify"),
        ("BELOT_VERIFY_URL", "https://verify/?q=1"),
        ("BELOT_PROMETHEUS_URL", "prometheus:9090"),
        ("BELOT_PROMETHEUS_URL", "http://prometheus:9090/api?x=1"),
        ("BELOT_PROMETHEUS_URL", "http://prometheus:9090/" + "p" * 2000),
        ("BELOT_TOKEN_SECRET", "short"),
        ("BELOT_TOKEN_SECRET_PREVIOUS", "short"),
        ("BELOT_ADMIN_TOKEN", "short"),
        # Longer than the longest window a commitment may fix (the verifier refuses it).
        ("BELOT_SEED_WINDOW", "600.5"),
        ("BELOT_SEED_WINDOW", "0"),
    ],
)
def test_bad_values_name_the_variable(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


@pytest.mark.parametrize("value", ["0", "-1", "fast", "nan", "1e7"])
def test_a_bad_rate_speaks_of_requests_a_second_not_seconds(value: str) -> None:
    with pytest.raises(SettingsError, match="BELOT_RATE_PER_SECOND") as bad:
        Settings.from_env({"BELOT_RATE_PER_SECOND": value})
    assert "requests a second" in str(bad.value) and "seconds" not in str(bad.value)


def test_a_rate_of_an_hour_or_more_is_a_rate() -> None:
    """4000 requests a second was refused as "between 0 and 3600 seconds"."""
    assert Settings.from_env({"BELOT_RATE_PER_SECOND": "4000"}).rate_per_second == 4000


def test_the_longest_seed_window_is_the_longest_a_commitment_may_fix() -> None:
    assert Settings.from_env({"BELOT_SEED_WINDOW": "600"}).seed_window == 600


def test_every_variable_is_in_the_configuration_table() -> None:
    text = CONFIGURATION.read_text(encoding="utf-8")
    for name, _, _ in VARIABLES:
        assert f"`{name}`" in text, name


def test_json_log_lines_carry_context_ids() -> None:
    record = logging.LogRecord("svc", logging.INFO, __file__, 1, "dealt %d", (8,), None)
    record.seat = 2
    with log_context(match_id="m-1", table_id="t-9"):
        line = json.loads(JsonFormatter().format(record))
    assert line["msg"] == "dealt 8" and line["level"] == "info"
    assert (line["match_id"], line["table_id"], line["seat"]) == ("m-1", "t-9", 2)


def test_belot_serve_reports_a_bad_setting_in_one_line() -> None:
    import subprocess
    import sys
    from pathlib import Path

    belot = Path(sys.executable).with_name("belot")
    proc = subprocess.run(
        [str(belot), "serve", "randomness"],
        capture_output=True,
        encoding="utf-8",
        env={"BELOT_LOG_LEVEL": "LOUD", "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "BELOT_LOG_LEVEL" in proc.stderr


def test_a_bad_url_is_reported_without_its_password() -> None:
    with pytest.raises(SettingsError, match="BELOT_NATS_URL") as bad:
        Settings.from_env({"BELOT_NATS_URL": "http://gateway:hunter2@nats1:4222"})
    assert "hunter2" not in str(bad.value) and "gateway:***@nats1" in str(bad.value)
    s = Settings.from_env({"BELOT_NATS_URL": "nats://gateway:hunter2@nats1:4222"})
    assert s.nats_url == "nats://gateway:hunter2@nats1:4222"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("BELOT_TOKEN_SECRET", "change-me-in-production"),  # the old compose default
        ("BELOT_TOKEN_SECRET", "change-me"),  # the old k8s default (too short, too)
        ("BELOT_TOKEN_SECRET", "CHANGEME-0123456789abcdef"),
        ("BELOT_TOKEN_SECRET", "secret-0123456789abcdef"),
        ("BELOT_TOKEN_SECRET_PREVIOUS", "password-0123456789abcdef"),
        ("BELOT_ADMIN_TOKEN", "example-admin-token-0123"),
        ("BELOT_ADMIN_TOKEN", "change_me_0123456789abcdef"),
        ("BELOT_PG_DSN", "postgresql://belot_table:change-me-table@postgres:5432/belot"),
        ("BELOT_PG_DSN", "postgresql://belot:belot@postgres:5432/belot"),  # old compose
        ("BELOT_VERIFY_READ_DSN", "postgresql://belot_verify:change-me-verify@pg-ro:5432/b"),
        ("BELOT_NATS_URL", "nats://gateway:compose-gateway@nats1:4222,nats://nats2:4222"),
        ("BELOT_NATS_URL", "nats://nats1:4222,nats://table:change-me-table@nats2:4222"),
        ("BELOT_PG_GATEWAY_PASSWORD", "change-me-gateway-0123"),
        ("BELOT_PG_OWNER_PASSWORD", "Password-0123456789"),
    ],
)
def test_well_known_placeholders_are_refused_in_one_line(name: str, value: str) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_env({name: value})
    message = str(refused.value)
    assert message.startswith(f"{name}: ") and "\n" not in message
    assert "placeholder" in message and "openssl rand" in message
    secret_part = value.rpartition("@")[0].rpartition(":")[2] if "://" in value else value
    # The value itself is never repeated (unless it is the public pattern itself).
    assert secret_part not in message or secret_part.lower() in PLACEHOLDER_PREFIXES


def test_real_secrets_and_passwords_are_taken() -> None:
    good = "3f1c0d6a9b8e7f6a5b4c3d2e1f0a9b8c"
    s = Settings.from_env(
        {
            "BELOT_TOKEN_SECRET": good,
            "BELOT_ADMIN_TOKEN": "p" + good,
            "BELOT_PG_DSN": f"postgresql://belot_table:{good}@postgres:5432/belot",
            "BELOT_NATS_URL": f"nats://table:p{good}@nats1:4222,nats://nats2:4222",
            "BELOT_PG_TABLE_PASSWORD": good,
            "BELOT_PG_ROLE_PREFIX": "prod_eu",
            "BELOT_RANDOMNESS_SCHEMA": "seeds",
            "BELOT_VERIFY_SCHEMA": "public_records",
        }
    )
    assert s.token_secret == good and s.pg_passwords == {"table": good}
    assert s.pg_role_prefix == "prod_eu"
    assert (s.randomness_schema, s.verify_schema) == ("seeds", "public_records")
    d = Settings.from_env({})
    assert (d.pg_role_prefix, d.randomness_schema, d.verify_schema) == (
        "belot",
        "randomness",
        "verify",
    )
    assert d.pg_passwords == {}


def test_the_verify_read_url_is_checked_like_the_primarys_and_kept_out_of_the_repr() -> None:
    good = "3f1c0d6a9b8e7f6a5b4c3d2e1f0a9b8c"
    read = f"postgresql://belot_verify:{good}@belot-pg-ro:5432/belot"
    s = Settings.from_env({"BELOT_VERIFY_READ_DSN": f" {read} "})
    assert s.verify_read_dsn == read
    assert good not in repr(s) and "belot-pg-ro" not in repr(s)
    assert Settings.from_env({}).verify_read_dsn is None
    assert Settings.from_env({"BELOT_VERIFY_READ_DSN": "  "}).verify_read_dsn is None
    with pytest.raises(SettingsError, match="BELOT_VERIFY_READ_DSN") as bad:
        Settings.from_env({"BELOT_VERIFY_READ_DSN": f"mysql://belot_verify:{good}@ro/belot"})
    message = str(bad.value)
    assert "must start with postgresql://" in message and good not in message
    assert "belot_verify:***@ro" in message and "\n" not in message


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("BELOT_PG_ROLE_PREFIX", "Belot"),
        ("BELOT_PG_ROLE_PREFIX", "9lives"),
        ("BELOT_PG_ROLE_PREFIX", "a" * 41),
        ("BELOT_PG_TABLE_PASSWORD", "short"),
        ("BELOT_RANDOMNESS_SCHEMA", "Seeds"),
        ("BELOT_VERIFY_SCHEMA", "verify-records"),
    ],
)
def test_bad_database_settings_name_the_variable(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def test_the_transparency_log_settings() -> None:
    from translog import Cosigner, Ed25519Signer

    key = Ed25519Signer("log.example.org/log", bytes(32))
    witness = Cosigner("w.example.org/w1", bytes(range(32)))
    s = Settings.from_env(
        {
            "BELOT_TRANSLOG_ORIGIN": "log.example.org/log",
            "BELOT_TRANSLOG_KEY": key.skey,
            "BELOT_TRANSLOG_INTERVAL": "0.5",
            "BELOT_TRANSLOG_WITNESSES": f"{witness.vkey}, ",
        }
    )
    assert (s.translog_origin, s.translog_key, s.translog_interval) == (key.name, key.skey, 0.5)
    assert s.translog_witnesses == (witness.vkey,)
    assert Settings.from_env({}).translog_key is None
    # The public key the gateway tells the tab: the log's, named as the origin.
    origin = {"BELOT_TRANSLOG_ORIGIN": key.name}
    assert Settings.from_env({**origin, "BELOT_TRANSLOG_VKEY": key.vkey}).translog_vkey == key.vkey
    assert Settings.from_env({}).translog_vkey is None
    other = Ed25519Signer(key.name, bytes(range(32)))
    bad = [
        ({"BELOT_TRANSLOG_ORIGIN": "two words"}, "BELOT_TRANSLOG_ORIGIN"),
        ({"BELOT_TRANSLOG_KEY": key.skey}, "named as its origin"),
        ({"BELOT_TRANSLOG_KEY": "PRIVATE+KEY+x"}, "not a note signing key"),
        (
            {"BELOT_TRANSLOG_ORIGIN": witness.name, "BELOT_TRANSLOG_KEY": witness.skey},
            "not a witness's",
        ),
        ({"BELOT_TRANSLOG_WITNESSES": key.vkey}, "not a witness's cosignature key"),
        ({"BELOT_TRANSLOG_INTERVAL": "0"}, "BELOT_TRANSLOG_INTERVAL"),
        ({"BELOT_TRANSLOG_VKEY": key.vkey}, "named as its origin"),
        ({**origin, "BELOT_TRANSLOG_VKEY": "x+1+AA=="}, "BELOT_TRANSLOG_VKEY"),
        (
            {"BELOT_TRANSLOG_ORIGIN": witness.name, "BELOT_TRANSLOG_VKEY": witness.vkey},
            "not a witness's",
        ),
        (
            {**origin, "BELOT_TRANSLOG_KEY": key.skey, "BELOT_TRANSLOG_VKEY": other.vkey},
            "not the public key of BELOT_TRANSLOG_KEY",
        ),
    ]
    for env, message in bad:
        with pytest.raises(SettingsError, match=message):
            Settings.from_env(env)
    # The key is a secret: never in the message.
    with pytest.raises(SettingsError) as info:
        Settings.from_env({"BELOT_TRANSLOG_KEY": key.skey})
    assert key.skey not in str(info.value)


def test_the_log_key_from_a_file_and_the_witness_cap(tmp_path: Path) -> None:
    from translog import Ed25519Signer

    key = Ed25519Signer("belot.localhost/log", bytes(32))
    path = tmp_path / "translog-key"
    path.write_text(key.skey + "\n", encoding="utf-8")
    s = Settings.from_env({"BELOT_TRANSLOG_KEY_FILE": str(path)})
    assert s.translog_key == key.skey and s.translog_max_witnesses == 64
    other = Ed25519Signer("log.example.org/log", bytes(32))
    path.write_text(other.skey, encoding="utf-8")
    bad = [
        ({"BELOT_TRANSLOG_KEY_FILE": str(path)}, "named as its origin"),
        ({"BELOT_TRANSLOG_KEY_FILE": str(tmp_path / "none")}, "cannot read it"),
        ({"BELOT_TRANSLOG_KEY_FILE": str(path), "BELOT_TRANSLOG_KEY": key.skey}, "both set"),
        ({"BELOT_TRANSLOG_MAX_WITNESSES": "-1"}, "BELOT_TRANSLOG_MAX_WITNESSES"),
        ({"BELOT_TRANSLOG_MAX_WITNESSES": "many"}, "BELOT_TRANSLOG_MAX_WITNESSES"),
    ]
    for env, message in bad:
        with pytest.raises(SettingsError, match=message) as info:
            Settings.from_env(env)
        assert other.skey not in str(info.value) and key.skey not in str(info.value)
    path.write_text("change-me-belot-log-keygen\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="placeholder"):
        Settings.from_env({"BELOT_TRANSLOG_KEY_FILE": str(path)})
    assert Settings.from_env({"BELOT_TRANSLOG_MAX_WITNESSES": "0"}).translog_max_witnesses == 0


def test_witness_registrations_terms_and_per_address_limit() -> None:
    from services.verify.translog import NEW_WITNESS_TTL_S, WITNESS_TTL_S, WITNESSES_PER_ADDRESS

    s = Settings.from_env({})
    # The log's defaults are the settings'.
    assert (s.translog_witness_ttl, s.translog_witness_ttl_new) == (
        WITNESS_TTL_S,
        NEW_WITNESS_TTL_S,
    )
    assert s.translog_witnesses_per_address == WITNESSES_PER_ADDRESS == 4
    s = Settings.from_env(
        {
            "BELOT_TRANSLOG_WITNESS_TTL": "3600",
            "BELOT_TRANSLOG_WITNESS_TTL_NEW": "60",
            "BELOT_TRANSLOG_WITNESSES_PER_ADDRESS": "2",
        }
    )
    assert (s.translog_witness_ttl, s.translog_witness_ttl_new) == (3600, 60)
    assert s.translog_witnesses_per_address == 2
    for name, value in (
        ("BELOT_TRANSLOG_WITNESS_TTL", "59"),
        ("BELOT_TRANSLOG_WITNESS_TTL", "a day"),
        ("BELOT_TRANSLOG_WITNESS_TTL_NEW", "0"),
        ("BELOT_TRANSLOG_WITNESSES_PER_ADDRESS", "0"),
    ):
        with pytest.raises(SettingsError, match=name):
            Settings.from_env({name: value})


def test_no_secret_reaches_the_repr() -> None:
    """A settings object that reaches a log line or a traceback carries no password,
    token or key: every setting that can hold one is left out of its repr."""
    from translog import Ed25519Signer

    signer = Ed25519Signer("belot.localhost/log", bytes(range(32)))
    words = [f"{n}{i}a9b8c7d6e5f4a3b2c1d0e9f8" for i, n in enumerate("pqrstuvw")]
    pg, nats, table_pw, token, previous, admin, read = words[:7]
    key = signer.skey.rsplit("+", 1)[1]  # the key's material, the part that is secret
    words[7] = key
    s = Settings.from_env(
        {
            "BELOT_PG_DSN": f"postgresql://belot:{pg}@db:5432/belot",
            "BELOT_NATS_URL": f"nats://table:{nats}@nats1:4222",
            "BELOT_PG_TABLE_PASSWORD": table_pw,
            "BELOT_TOKEN_SECRET": token,
            "BELOT_TOKEN_SECRET_PREVIOUS": previous,
            "BELOT_ADMIN_TOKEN": admin,
            "BELOT_TRANSLOG_KEY": signer.skey,
            "BELOT_VERIFY_READ_DSN": f"postgresql://belot_verify:{read}@ro:5432/belot",
        }
    )
    # Each one was read (so its absence from the repr is not an absence of the value).
    assert s.pg_dsn and s.nats_url and s.pg_passwords == {"table": table_pw}
    assert s.token_secret == token and s.admin_token == admin and s.translog_key
    shown = repr(s)
    assert [w for w in words if w in shown] == []
