"""One refusal type and one status table (``belot_platform.errors``, docs/platform.md).

Two kinds of check:

- the shape: every refusal in the services and the platform is a ``ServiceError``. A
  class that sets both ``code`` and ``message`` itself, or a class with a refusal's old
  names (``ApiError``, ``UsageError``, ``Refused``, ``TableError``, ...) that does not
  derive from it, is a second shape coming back; a subclass adds a name for ``except``
  clauses, never a field. The pure cores (``belot``, ``tournament``, ``translog``,
  ``fairdeal``, ...) sit below the platform and cannot import it: their coded errors are
  converted once, ``ServiceError.of(exc)``.
- the statuses: the codes the gateway and the verify API answer with, and the status
  each answers them with (their documented API), come out of ``status_of``; every code
  a service raises has a client's status; a status given at a raise differs from the
  table's (else it is noise that hides the table).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from belot.errors import IllegalCard, RulesError
from belot_platform import errors
from belot_platform.app import error_response, outage_response, refusal_response
from belot_platform.errors import (
    EXIT_USAGE,
    STATUS,
    ServiceError,
    UsageError,
    status_of,
)
from belot_platform.fields import FieldError
from fairdeal.fairness import FairnessError
from services.table.domain import TableError
from services.tournament.domain import Refused
from tests.unit.test_purity import PURE
from tests.unit.test_web_errors import service_codes
from tournament.errors import TournamentError
from translog.errors import TranslogError

ROOT = Path(__file__).resolve().parents[2]
ERRORS_PY = ROOT / "libs" / "belot_platform" / "errors.py"

#: Names a refusal type has had: any class so named must be the one type or a thin
#: subclass of it.
REFUSAL_NAMES = frozenset(
    {"ApiError", "UsageError", "Refused", "TableError", "BadInput", "CommandError"}
)
#: Classes that set ``code`` and ``message`` themselves though above the pure cores,
#: and why.
OWN_SHAPE = {
    # Its str() is the bare message (the settings print it) and it names the field; the
    # edges convert it (ServiceError.of), as they do the cores' errors.
    ("libs/belot_platform/fields.py", "FieldError"),
}

#: What the gateway answers each code with (docs/gateway.md, docs/tournaments.md).
GATEWAY = {
    **dict.fromkeys(("bad_request", "seed_wrong_length", "seed_not_hex"), 400),
    **dict.fromkeys(("unknown_seat", "card_not_in_hand"), 400),
    **dict.fromkeys(("bad_settings", "bad_result", "bad_seeding", "bad_payload"), 400),
    **dict.fromkeys(("unauthorized", "bad_credentials"), 401),
    **dict.fromkeys(("not_your_seat", "forbidden", "wrong_password"), 403),
    **dict.fromkeys(("unknown_table", "not_found", "unknown_tournament"), 404),
    "unknown_match": 404,
    "method_not_allowed": 405,
    "table_closed": 410,
    "request_entity_too_large": 413,
    "rate_limited": 429,
    "internal": 500,
    **dict.fromkeys(("unavailable", "timeout", "table_unavailable"), 503),
    # The refusals: the request was understood, the state refuses it now.
    **dict.fromkeys(("not_your_turn", "illegal_card", "bid_not_allowed", "match_over"), 409),
    **dict.fromkeys(("seat_taken", "table_started", "name_taken", "match_not_ended"), 409),
    **dict.fromkeys(("registration_closed", "tournament_full", "already_started"), 409),
    **dict.fromkeys(("round_in_progress", "paused", "seed_window_closed", "busy"), 409),
    "bad_event": 409,  # the game's BadEvent: a log the rules cannot follow
}
#: What the verify API answers each code with (docs/verifying.md, the OpenAPI document,
#: docs/transparency-log.md).
VERIFY = {
    **dict.fromkeys(("bad_request", "bad_match_id", "bad_limit", "bad_before"), 400),
    **dict.fromkeys(("bad_ruleset", "bad_player", "bad_ended_by", "bad_commitment"), 400),
    **dict.fromkeys(("bad_chain", "bad_round", "empty_body", "bad_json"), 400),
    **dict.fromkeys(("not_a_record", "bad_input", "witness_key_type", "bad_size"), 400),
    **dict.fromkeys(("bad_index", "bad_first", "bad_second", "bad_stream"), 400),
    **dict.fromkeys(("out_of_range", "key_malformed", "note_malformed"), 400),
    "witness_unknown": 403,
    **dict.fromkeys(("not_found", "unknown_match", "no_checkpoint", "no_tile"), 404),
    "checkpoint_unknown": 404,
    "method_not_allowed": 405,
    **dict.fromkeys(("match_not_ended", "seed_not_revealed"), 409),
    **dict.fromkeys(("witness_key_taken", "witness_limit"), 409),
    "too_large": 413,
    "unsupported_media_type": 415,
    "rate_limited": 429,
    "internal": 500,
    **dict.fromkeys(("unavailable", "starting"), 503),
}
#: The only codes answered with a 5xx: a fault of ours, or "not now".
SERVER_SIDE = frozenset({"internal", "unavailable", "timeout", "table_unavailable", "starting"})


def _sources() -> Iterator[tuple[str, ast.Module]]:
    """Every module above the pure cores: the services and the libraries that may import
    the platform."""
    roots = [ROOT / "services", *(p for p in (ROOT / "libs").iterdir() if p.is_dir())]
    for root in roots:
        if root.name in PURE:
            continue
        for path in sorted(root.rglob("*.py")):
            yield (
                str(path.relative_to(ROOT)),
                ast.parse(path.read_text(encoding="utf-8"), str(path)),
            )


def _sets_in_init(cls: ast.ClassDef) -> set[str]:
    """The attributes ``__init__`` assigns on ``self``."""
    found: set[str] = set()
    for item in cls.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__init__":
            for node in ast.walk(item):
                targets = node.targets if isinstance(node, ast.Assign) else []
                if isinstance(node, ast.AnnAssign):
                    targets = [node.target]
                for t in targets:
                    if (
                        isinstance(t, ast.Attribute)
                        and isinstance(t.value, ast.Name)
                        and t.value.id == "self"
                    ):
                        found.add(t.attr)
    return found


def _assigned_names(node: ast.AST) -> set[str]:
    """The names a statement binds (``X = ...``, ``X: T = ...``)."""
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    return set()


def _base_names(cls: ast.ClassDef) -> set[str]:
    return {ast.unparse(b).rsplit(".", 1)[-1] for b in cls.bases}


def _subclasses(base: type) -> Iterator[type]:
    for sub in base.__subclasses__():
        yield sub
        yield from _subclasses(sub)


# --- the shape ------------------------------------------------------------------------


def test_the_scan_reads_the_services_and_the_platform() -> None:
    paths = {path for path, _ in _sources()}
    assert "services/gateway/handlers.py" in paths and "libs/belot_platform/errors.py" in paths
    assert "libs/eventlog/cli.py" in paths
    assert not any(p.startswith(("libs/belot/", "libs/translog/")) for p in paths)


def test_no_second_refusal_shape() -> None:
    """No class above the pure cores sets both ``code`` and ``message`` but the one type
    (and :data:`OWN_SHAPE`); every class with a refusal's name derives from it."""
    own_shape: list[str] = []
    misnamed: list[str] = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            where = f"{path}:{node.lineno} {node.name}"
            if path == "libs/belot_platform/errors.py":
                continue
            if (path, node.name) not in OWN_SHAPE and {"code", "message"} <= _sets_in_init(node):
                own_shape.append(where)
            if node.name in REFUSAL_NAMES and "ServiceError" not in _base_names(node):
                misnamed.append(where)
    assert not own_shape, f"a second refusal shape (derive from ServiceError): {own_shape}"
    assert not misnamed, f"a refusal's name that is not a ServiceError: {misnamed}"


def test_subclasses_of_the_refusal_add_no_field() -> None:
    """``TableError``, ``Refused``: a name for ``except`` clauses, nothing more (the one
    subclass with a constructor of its own, :class:`UsageError`, is in errors.py)."""
    thick: list[str] = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and "ServiceError" in _base_names(node):
                defs = [i.name for i in node.body if isinstance(i, ast.FunctionDef)]
                if defs and path != "libs/belot_platform/errors.py":
                    thick.append(f"{path}:{node.lineno} {node.name} {defs}")
    assert not thick, f"a refusal subclass with its own methods or fields: {thick}"
    assert issubclass(TableError, ServiceError) and issubclass(Refused, ServiceError)
    assert issubclass(UsageError, ServiceError)


def test_one_usage_error_for_every_command() -> None:
    """The ``belot`` subcommands raise the one :class:`UsageError`: its ``str()`` is the
    line they print, and they exit 2."""
    from commands import cli, drand_cmd, verify_cmd, witness_cmd
    from eventlog import cli as log_cli

    for module in (cli, drand_cmd, verify_cmd, witness_cmd, log_cli):
        assert module.UsageError is UsageError, module.__name__
    for module in (cli, verify_cmd, witness_cmd, log_cli):
        assert module.EXIT_USAGE == EXIT_USAGE == 2, module.__name__
    defined = [
        f"{path}:{node.lineno}"
        for path, tree in _sources()
        if path != "libs/belot_platform/errors.py"
        for node in ast.walk(tree)
        if "EXIT_USAGE" in _assigned_names(node)
    ]
    assert not defined, f"a second EXIT_USAGE (import the platform's): {defined}"
    exc = UsageError("--round 'x' is not a whole number")
    assert str(exc) == "--round 'x' is not a whole number"
    assert exc.to_json() == {"error": errors.USAGE, "message": str(exc)}


def test_a_core_error_becomes_a_refusal_once() -> None:
    """``ServiceError.of``: the code and the message, nothing added or lost."""
    cases: list[RulesError | TournamentError | FairnessError | FieldError] = [
        IllegalCard("follow suit"),
        TournamentError("refused"),
        FairnessError("seed_window_closed", "the window has closed"),
        FieldError("seats[1].player", "holds a NUL character"),
    ]
    for exc in cases:
        refusal = ServiceError.of(exc)
        assert (refusal.code, refusal.message) == (exc.code, exc.message)
        assert refusal.to_json() == {"error": exc.code, "message": exc.message}
    table = TableError.of(IllegalCard("follow suit"))
    assert type(table) is TableError and table.status == 409
    # FieldError keeps its own str(): the settings print it.
    assert str(FieldError("BELOT_PORT", "is not a number")) == "BELOT_PORT is not a number"
    assert str(ServiceError("bad_request", "no")) == "bad_request: no"


# --- the statuses ---------------------------------------------------------------------


@pytest.mark.parametrize(("api", "table"), [("gateway", GATEWAY), ("verify", VERIFY)])
def test_status_of_gives_what_each_api_answers(api: str, table: dict[str, int]) -> None:
    wrong = {
        code: (status_of(code), want) for code, want in table.items() if status_of(code) != want
    }
    assert not wrong, f"{api}: code -> (status_of, documented): {wrong}"


def test_the_gateway_and_verify_agree() -> None:
    shared = GATEWAY.keys() & VERIFY.keys()
    assert {"bad_request", "not_found", "unknown_match", "rate_limited"} <= shared
    assert {c: (GATEWAY[c], VERIFY[c]) for c in shared if GATEWAY[c] != VERIFY[c]} == {}


def test_the_families_and_the_table() -> None:
    assert status_of("bad_anything_new") == errors.BAD_INPUT_STATUS == 400
    assert status_of("anything_new") == errors.REFUSAL_STATUS == 409
    assert status_of("bad_credentials") == 401  # the table first
    assert all(100 <= s <= 599 for s in STATUS.values())
    with pytest.raises(TypeError):
        STATUS["new"] = 400  # type: ignore[index]


def test_every_core_refusal_is_the_clients() -> None:
    """The cores' codes are 4xx; the transparency log's are all bad input (the verify API
    answers every one with 400)."""
    for base in (RulesError, TournamentError, TranslogError):
        for cls in _subclasses(base):
            assert 400 <= status_of(cls.code) < 500, (cls.__name__, cls.code)
    translog = {cls.code: status_of(cls.code) for cls in _subclasses(TranslogError)}
    assert len(translog) >= 12 and set(translog.values()) == {400}, translog


def test_every_code_the_services_raise_has_a_status() -> None:
    """Every code a page can be answered with (the web client's scan of the sources) has
    a client's status, and only the server's own codes are 5xx."""
    codes = service_codes()
    assert len(codes) > 100
    server = {c for c in codes if status_of(c) >= 500}
    assert {"internal", "unavailable"} <= server <= SERVER_SIDE, server
    assert all(400 <= status_of(c) < 600 for c in codes)


def test_a_status_given_at_a_raise_differs_from_the_table() -> None:
    """``ServiceError(code, message, status=N)`` is for a route that answers ``code``
    unlike the rest; a literal ``N`` equal to the table's is noise."""
    given: list[str] = []
    redundant: list[str] = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or ast.unparse(node.func) not in (
                "ServiceError",
                "TableError",
                "Refused",
                "error_response",
                "refuse",
            ):
                continue
            status = next((k.value for k in node.keywords if k.arg == "status"), None)
            code = node.args[0] if node.args else None
            if not isinstance(status, ast.Constant) or not isinstance(code, ast.Constant):
                continue
            where = f"{path}:{node.lineno} {code.value} {status.value}"
            given.append(where)
            if status.value == status_of(code.value):
                redundant.append(where)
    assert given, "the scan finds the gateway's leaderboard path (bad_ruleset, 404)"
    assert not redundant, f"a status equal to the table's: {redundant}"


# --- the HTTP answer ------------------------------------------------------------------


def _body(response: object) -> dict[str, str]:
    text = getattr(response, "text", None)
    assert isinstance(text, str)
    body: dict[str, str] = orjson.loads(text)
    return body


def test_error_response_takes_the_status_from_the_table() -> None:
    response = error_response("not_your_turn", "seat 2 is to play")
    assert response.status == 409 and response.content_type == "application/json"
    assert _body(response) == {"error": "not_your_turn", "message": "seat 2 is to play"}
    assert "Retry-After" not in response.headers
    given = error_response("unknown_pool", "no pool", status=400, headers={"X-A": "1"})
    assert given.status == 400 and given.headers["X-A"] == "1"


def test_every_503_says_when_to_ask_again() -> None:
    timeout = error_response("timeout", "no reply on belot.table.t1.play within 5s")
    assert timeout.status == 503 and _body(timeout)["error"] == "unavailable"
    assert timeout.headers["Retry-After"] == "5"
    own = error_response("starting", "the service is starting", headers={"Retry-After": "1"})
    assert own.headers["Retry-After"] == "1"
    outage = outage_response("the database does not answer")
    assert outage.status == 503 and _body(outage)["message"].endswith("retry in a few seconds")


def test_refusal_response_answers_the_raised_refusal() -> None:
    exc = ServiceError("rate_limited", "slow down", headers={"Retry-After": "3"})
    response = refusal_response(exc)
    assert response.status == 429 and response.headers["Retry-After"] == "3"
    assert _body(response) == exc.to_json()
    assert refusal_response(ServiceError("bad_ruleset", "no", status=404)).status == 404


def test_the_module_is_pure() -> None:
    """errors.py imports no I/O library: the command-line tools import it at start."""
    tree = ast.parse(ERRORS_PY.read_text(encoding="utf-8"))
    imported = {
        (n.module or "").split(".")[0] if isinstance(n, ast.ImportFrom) else a.name.split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }
    assert imported <= {"__future__", "collections", "types", "typing"}, imported
