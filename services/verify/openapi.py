"""The verify API's OpenAPI 3.0 document, served at ``/v1/openapi.json`` and fuzzed by
the tests (schemathesis). The match record's own schema is the JSON Schema file
``libs/fairdeal/schema/match-record-v1.json`` (draft 2020-12)."""

from __future__ import annotations

from typing import Any, Final

from belot import RULESETS
from eventkit.envelope import ENVELOPE_KEYS
from eventkit.streams import MATCH_ENDINGS
from fairdeal.chains import CHAINS
from fairdeal.record import FORMAT
from fairdeal.verifier import CHECKS
from fairdeal.verifier.report import REPORT_FORMAT
from fairdeal.verifier.wholelog import PLATFORM_CHECKS
from services.verify.fairplay import DEFAULT_WINDOW, MAX_PLAYER, MAX_WINDOW
from services.verify.translog import OPENAPI_PATHS as TRANSLOG_PATHS

_ERROR_REF: Final = {"$ref": "#/components/schemas/Error"}


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ERROR_REF}}}


def _json(ref: str, description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}},
    }
    if headers:
        out["headers"] = headers
    return out


_CACHE_HEADERS: Final = {
    "ETag": {"schema": {"type": "string"}, "description": "changes with any new visible event"},
    "Cache-Control": {
        "schema": {"type": "string"},
        "description": "public, max-age=3600 once ended and revealed; no-cache before",
    },
}
_COMMON_ERRORS: Final = {
    "400": _error("bad input: the code names it (bad_match_id, bad_limit, ...)"),
    "429": _error("rate limited (per client address); see Retry-After"),
    "503": _error("the event log cannot be read now"),
}
_MATCH_ID: Final = {
    "name": "match_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_:-]{1,180}$"},
}
_IF_NONE_MATCH: Final = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "schema": {"type": "string"},
}
_NOT_MODIFIED: Final = {"description": "not modified (If-None-Match named the ETag)"}

_ENVELOPE: Final = {
    "type": "object",
    "required": list(ENVELOPE_KEYS),
    "properties": {
        "position": {"type": "integer"},
        "stream": {"type": "string"},
        "version": {"type": "integer"},
        "type": {"type": "string"},
        "payload": {"type": "object"},
        "metadata": {"type": "object"},
        "visibility": {"type": "string"},
        "recorded_at": {"type": "string"},
        "hash": {"type": "string"},
    },
}
_STREAM: Final = {
    "type": "object",
    "required": ["id", "head", "events"],
    "properties": {
        "id": {"type": "string"},
        "head": {"type": "string", "nullable": True},
        "events": {"type": "array", "items": _ENVELOPE},
    },
}

_OPERATOR: Final[list[dict[str, list[str]]]] = [{"operator": []}]
_WINDOW: Final = {
    "name": "window",
    "in": "query",
    "required": False,
    "description": "the player's last deals counted (default "
    f"{DEFAULT_WINDOW}), the latest match first",
    "schema": {"type": "integer", "minimum": 1, "maximum": MAX_WINDOW, "default": DEFAULT_WINDOW},
}
_OPERATOR_ERRORS: Final = {
    "400": _error("bad_window (not a whole number 1..1000) or bad_player"),
    "401": _error("unauthorized: no Bearer token"),
    "403": _error("forbidden: not the operators' token, or none is set on this service"),
    "429": _error("rate limited (per client address); see Retry-After"),
    "503": _error("the database cannot be read now"),
}
_NO_STORE: Final = {"Cache-Control": {"schema": {"type": "string"}, "description": "no-store"}}
_FAIRPLAY_ABOUT: Final = (
    " For operators only (Authorization: Bearer <BELOT_ADMIN_TOKEN>). The evidence is "
    "docs/fair-play.md's: each card a seat chose where it had a choice, whether it was a "
    "double-dummy best card (every hand known), and its chance of being one for a seat "
    "that sees only itself (the share of the worlds, deals of the hidden cards consistent "
    "with what the seat saw, in which it is a best card); the score weighs each best card "
    "found against the rate a seat that reads the table is allowed (a best card found "
    "against the odds weighs most), and from flag_score up it is flagged for a person "
    "to review. "
    "Nothing is done to a flagged player. Display names are the gateway's "
    "(GET /v1/players/{id} there)."
)
_FAIRPLAY_PATHS: Final = {
    "/v1/fairplay/players": {
        "get": {
            "operationId": "listFairPlay",
            "summary": "Every player with counted decisions, flagged ones first",
            "description": "Each account's evidence over its last `window` deals (its own "
            "seats), and each partnership's (both seats' decisions in the deals they sat "
            "together); flagged first, then by score." + _FAIRPLAY_ABOUT,
            "security": _OPERATOR,
            "parameters": [_WINDOW],
            "responses": {
                "200": _json("FairPlayList", "the players", _NO_STORE),
                **_OPERATOR_ERRORS,
            },
        }
    },
    "/v1/fairplay/players/{player}": {
        "get": {
            "operationId": "getFairPlay",
            "summary": "A player's evidence and the decisions it rests on",
            "description": "The evidence, and every counted decision: its match, deal, trick "
            "and place in the trick, the card played, the double-dummy best cards, the "
            "worlds and in how many the card played was a best card, the card best in the "
            "most worlds; `replay` is the web client's replay of the match." + _FAIRPLAY_ABOUT,
            "security": _OPERATOR,
            "parameters": [
                {
                    "name": "player",
                    "in": "path",
                    "required": True,
                    "schema": {"type": "string", "minLength": 1, "maxLength": MAX_PLAYER},
                },
                _WINDOW,
            ],
            "responses": {
                "200": _json("FairPlayPlayer", "the player's evidence and decisions", _NO_STORE),
                "404": _error("unknown_player: no decisions of this player are kept"),
                **_OPERATOR_ERRORS,
            },
        }
    },
}
_EVIDENCE: Final = {
    "type": "object",
    "required": ["decisions", "found", "expected", "score", "flagged"],
    "properties": {
        "decisions": {"type": "integer", "description": "counted decisions"},
        "found": {"type": "integer", "description": "of them, those whose card played was a "
                  "double-dummy best card"},
        "expected": {"type": "number", "description": "their chances' sum: how many a seat "
                     "that sees only itself finds, on average"},
        "score": {"type": "number", "description": "each decision's weighted excess of best "
                  "cards over the allowed rate (belot.fairplay.term), summed, over the root of "
                  "their variances' sum: at most about a standard normal for such a seat"},
        "flagged": {"type": "boolean", "description": "score >= flag_score: for review"},
    },
}  # fmt: skip
_DECISION: Final = {
    "type": "object",
    "required": ["match_id", "deal", "trick", "index", "seat", "played", "dd_best",
                 "played_value", "choice", "worlds", "hits", "likeliest", "found", "chance",
                 "surprise", "acted_by", "replay"],
    "properties": {
        "match_id": {"type": "string"},
        "deal": {"type": "integer"},
        "trick": {"type": "integer"},
        "index": {"type": "integer", "description": "the card's place in the trick, from 0"},
        "seat": {"type": "integer"},
        "played": {"type": "string"},
        "dd_best": {"type": "array", "items": {"type": "string"},
                    "description": "the best cards with every hand known"},
        "played_value": {"type": "integer",
                         "description": "the card played's double-dummy value (card points)"},
        "choice": {"type": "boolean",
                   "description": "the legal cards were not all worth the same"},
        "worlds": {"type": "integer", "description": "the worlds (deals of the hidden cards "
                   "consistent with what the seat saw) in which the legal cards were not all "
                   "worth the same"},
        "hits": {"type": "integer",
                 "description": "of them, those in which the card played was a best card"},
        "likeliest": {"type": "string",
                      "description": "the card that was a best card in the most worlds"},
        "found": {"type": "boolean", "description": "the card played is in dd_best"},
        "chance": {"type": "number", "description": "hits / worlds"},
        "surprise": {"type": "number", "description": "found (1 or 0) less chance"},
        "acted_by": {"type": "string", "nullable": True},
        "replay": {"type": "string", "description": "the web client's route: /#/replay/<id>"},
    },
}  # fmt: skip


_METHOD: Final = {
    "type": "string",
    "description": "how the decisions' chances were computed (the worlds drawn, each "
    "solved); the evidence is of this method's decisions only",
}


def _player_schema(with_decisions: bool) -> dict[str, Any]:
    partner: dict[str, Any] = {
        "type": "object",
        "required": ["player", "deals", "evidence"],
        "properties": {
            "player": {"type": "string"},
            "deals": {"type": "integer"},
            "evidence": _EVIDENCE,
        },
    }
    out: dict[str, Any] = {
        "type": "object",
        "required": ["player", "matches", "deals", "flagged", "evidence", "partners"],
        "properties": {
            "player": {"type": "string"},
            "matches": {"type": "integer"},
            "deals": {"type": "integer"},
            "flagged": {"type": "boolean", "description": "its own or a partnership's"},
            "evidence": _EVIDENCE,
            "partners": {"type": "array", "items": partner},
        },
    }
    if with_decisions:
        out["required"] = [*out["required"], "window", "flag_score", "method", "decisions"]
        out["properties"]["window"] = {"type": "integer"}
        out["properties"]["flag_score"] = {"type": "number"}
        out["properties"]["method"] = _METHOD
        out["properties"]["decisions"] = {"type": "array", "items": _DECISION}
        partner["properties"]["decisions"] = {"type": "array", "items": _DECISION}
    return out


_FAIRPLAY_SCHEMAS: Final = {
    "FairPlayList": {
        "type": "object",
        "required": ["window", "flag_score", "method", "backlog", "players"],
        "properties": {
            "window": {"type": "integer"},
            "flag_score": {"type": "number"},
            "method": _METHOD,
            "backlog": {
                "type": "integer",
                "description": "analysed matches not yet taken by this method",
            },
            "players": {"type": "array", "items": _player_schema(False)},
        },
    },
    "FairPlayPlayer": _player_schema(True),
}

OPENAPI: Final[dict[str, Any]] = {
    "openapi": "3.0.3",
    "info": {
        "title": "belot verify API",
        "version": "1",
        "description": (
            "Public, read-only: finished matches, their records (format "
            f"{FORMAT}) and the verifier's report on any record. Every error is "
            '{"error": code, "message": text}. CORS: any origin. Rate limits per client '
            "address (429 with Retry-After)."
        ),
    },
    "paths": {
        "/v1/matches": {
            "get": {
                "operationId": "listMatches",
                "summary": "Finished matches, the latest end first",
                "parameters": [
                    {
                        "name": "limit",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
                    },
                    {
                        "name": "before",
                        "in": "query",
                        "description": "the `next` of the previous page: matches that ended before",
                        "schema": {"type": "integer", "minimum": 1},
                    },
                    {
                        "name": "ruleset",
                        "in": "query",
                        "schema": {"type": "string", "enum": sorted(RULESETS)},
                    },
                    {
                        "name": "player",
                        "in": "query",
                        "schema": {"type": "string", "minLength": 1, "maxLength": 200},
                    },
                    {
                        "name": "ended_by",
                        "in": "query",
                        "schema": {
                            "type": "string",
                            "enum": sorted(MATCH_ENDINGS),
                        },
                    },
                ],
                "responses": {
                    "200": _json("MatchList", "a page of finished matches"),
                    **_COMMON_ERRORS,
                },
            }
        },
        "/v1/matches/{match_id}": {
            "get": {
                "operationId": "getMatch",
                "summary": "A match's public view (its record without the streams)",
                "description": "Private fields (decks, cards dealt, seat seeds before the "
                "window closed, the server seed) are null until the match ends.",
                "parameters": [_MATCH_ID, _IF_NONE_MATCH],
                "responses": {
                    "200": _json("MatchView", "the public view", _CACHE_HEADERS),
                    "304": _NOT_MODIFIED,
                    "404": _error("unknown_match"),
                    **_COMMON_ERRORS,
                },
            }
        },
        "/v1/matches/{match_id}/record": {
            "get": {
                "operationId": "getRecord",
                "summary": f"The match record ({FORMAT})",
                "description": "Public events only until the match ends (complete: false).",
                "parameters": [_MATCH_ID, _IF_NONE_MATCH],
                "responses": {
                    "200": _json("Record", "the record", _CACHE_HEADERS),
                    "304": _NOT_MODIFIED,
                    "404": _error("unknown_match"),
                    **_COMMON_ERRORS,
                },
            }
        },
        "/v1/matches/{match_id}/verification": {
            "get": {
                "operationId": "getVerification",
                "summary": "The verifier's report on a finished match",
                "parameters": [_MATCH_ID, _IF_NONE_MATCH],
                "responses": {
                    "200": _json("Report", "the report (ok or not)", _CACHE_HEADERS),
                    "304": _NOT_MODIFIED,
                    "404": _error("unknown_match"),
                    "409": _error("match_not_ended, or seed_not_revealed (see Retry-After)"),
                    **_COMMON_ERRORS,
                },
            }
        },
        "/v1/matches/{match_id}/analysis": {
            "get": {
                "operationId": "getAnalysis",
                "summary": "The finished match analysed double-dummy",
                "description": "For every card played, each legal card's value with every "
                "hand known (card points the seat's side takes from there less the other's), "
                "the best cards and the points given away; each deal's card points by strain; "
                "each seat's accuracy. Made once by the analysis job after the match ended, "
                "from the verified record; `belot analyse` recomputes it from the record.",
                "parameters": [_MATCH_ID, _IF_NONE_MATCH],
                "responses": {
                    "200": _json("Analysis", "the analysis (belot-analysis/1)", _CACHE_HEADERS),
                    "304": _NOT_MODIFIED,
                    "404": _error("unknown_match"),
                    "409": _error(
                        "match_not_ended, seed_not_revealed or analysis_pending (see "
                        "Retry-After), or not_verified (the record fails a check)"
                    ),
                    **_COMMON_ERRORS,
                },
            }
        },
        "/v1/matches/{match_id}/receipts": {
            "get": {
                "operationId": "getReceipts",
                "summary": "The receipts the seats published for their seeds",
                "description": "Each signed with the match's receipt key (its commitment's "
                "receipt_key); a match's verification holds its record to them "
                "(seed_receipts).",
                "parameters": [_MATCH_ID],
                "responses": {
                    "200": _json("Receipts", "the receipts, by seat"),
                    "404": _error("unknown_match"),
                    **_COMMON_ERRORS,
                },
            },
            "post": {
                "operationId": "publishReceipt",
                "summary": "A seat publishes its receipt for its seed, once the match ended",
                "description": "Kept only if signed with the match's receipt key; kept once.",
                "parameters": [_MATCH_ID],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Receipt"}}
                    },
                },
                "responses": {
                    "201": _json("Published", "kept"),
                    "200": _json("Published", "kept already"),
                    "404": _error("unknown_match"),
                    "409": _error("match_not_ended, or no_receipt_key (a match from before)"),
                    "413": _error("too_large: more than 4 KiB"),
                    **_COMMON_ERRORS,
                },
            },
        },
        "/v1/verify": {
            "post": {
                "operationId": "verifyRecord",
                "summary": "Verify a record anyone uploads",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Record"}}
                    },
                },
                "responses": {
                    "200": _json("Report", "the report (ok or not)"),
                    "400": _error("bad_json, empty_body or not_a_record"),
                    "413": _error("too_large: more than 4 MiB"),
                    "429": _COMMON_ERRORS["429"],
                },
            }
        },
        "/v1/decks": {
            "get": {
                "operationId": "getDeck",
                "summary": "A deal's deck from the fair-deal inputs (as `belot deck`)",
                "parameters": [
                    {
                        "name": "server_seed",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string", "pattern": "^[0-9a-fA-F]{64}$"},
                    },
                    {
                        "name": "seat_seed",
                        "in": "query",
                        "required": True,
                        "style": "form",
                        "explode": True,
                        "description": "one per seat in seat order: 32 hex digits, or empty",
                        "schema": {
                            "type": "array",
                            "minItems": 1,
                            "maxItems": 255,
                            "items": {"type": "string", "pattern": "^([0-9a-fA-F]{32})?$"},
                        },
                    },
                    {
                        "name": "deal",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "integer", "minimum": 0, "maximum": 4294967295},
                    },
                    {
                        "name": "drand_round",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 0},
                    },
                    {
                        "name": "drand_value",
                        "in": "query",
                        "schema": {"type": "string", "pattern": "^[0-9a-fA-F]{64}$"},
                    },
                    {
                        "name": "cards",
                        "in": "query",
                        "schema": {"type": "integer", "enum": [32, 24], "default": 32},
                    },
                ],
                "responses": {
                    "200": _json("Deck", "the deck, top card first"),
                    "400": _error("bad_input"),
                    "429": _COMMON_ERRORS["429"],
                },
            }
        },
        "/v1/commitments/{commitment}": {
            "get": {
                "operationId": "getCommitment",
                "summary": "Every match that committed to this server seed hash (more than one "
                "is a seed used twice)",
                "parameters": [
                    {
                        "name": "commitment",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                    }
                ],
                "responses": {
                    "200": _json("CommitmentUsers", "the matches, earliest first"),
                    **_COMMON_ERRORS,
                },
            }
        },
        "/v1/rounds/{chain}/{round}": {
            "get": {
                "operationId": "getRound",
                "summary": "A drand round's one public fact (its value came in time, or it was "
                "missed) and every match that named it",
                "parameters": [
                    {
                        "name": "chain",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "enum": sorted(CHAINS)},
                    },
                    {
                        "name": "round",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "integer", "minimum": 1},
                    },
                ],
                "responses": {
                    "200": _json("Round", "the fact and the matches"),
                    **_COMMON_ERRORS,
                },
            }
        },
        "/v1/stats": {
            "get": {
                "operationId": "getStats",
                "summary": "The rates anyone can watch: drand rounds missed, matches dealt "
                "without drand, aborts after a deck went out, missing seeds, commitments "
                "used twice; over all time and the last 24 hours",
                "responses": {
                    "200": _json("Stats", "the figures"),
                    "429": _COMMON_ERRORS["429"],
                    "503": _COMMON_ERRORS["503"],
                },
            }
        },
        "/v1/match-record-v1.schema.json": {
            "get": {
                "operationId": "getRecordSchema",
                "summary": f"The JSON Schema (2020-12) of the record format {FORMAT}",
                "responses": {
                    "200": {
                        "description": "the schema",
                        "content": {"application/schema+json": {"schema": {"type": "object"}}},
                    }
                },
            }
        },
        "/v1/openapi.json": {
            "get": {
                "operationId": "getOpenApi",
                "summary": "This document",
                "responses": {
                    "200": {
                        "description": "OpenAPI 3.0",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        },
        # The transparency log (services/verify/translog.py).
        **TRANSLOG_PATHS,
        # The operators' fair-play evidence (services/verify/fairplay.py).
        **_FAIRPLAY_PATHS,
    },
    "components": {
        "securitySchemes": {"operator": {"type": "http", "scheme": "bearer"}},
        "schemas": {
            **_FAIRPLAY_SCHEMAS,
            "Error": {
                "type": "object",
                "required": ["error", "message"],
                "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
            },
            "FinishedMatch": {
                "type": "object",
                "required": [
                    "match_id",
                    "ruleset",
                    "players",
                    "ended_by",
                    "winner",
                    "scores",
                    "ended_at",
                    "position",
                    "revealed",
                    "dealt_with_drand",
                    "links",
                ],
                "properties": {
                    "match_id": {"type": "string"},
                    "ruleset": {"type": "string"},
                    "players": {"type": "array", "items": {"type": "string"}},
                    "ended_by": {"type": "string"},
                    "winner": {"type": "integer", "nullable": True},
                    "scores": {"type": "array", "items": {"type": "integer"}},
                    "ended_at": {"type": "string", "format": "date-time"},
                    "position": {"type": "integer"},
                    "revealed": {"type": "boolean"},
                    "dealt_with_drand": {"type": "boolean", "nullable": True},
                    "links": {"type": "object"},
                },
            },
            "MatchList": {
                "type": "object",
                "required": ["matches", "next"],
                "properties": {
                    "matches": {
                        "type": "array",
                        "items": {"$ref": "#/components/schemas/FinishedMatch"},
                    },
                    "next": {
                        "type": "string",
                        "nullable": True,
                        "description": "pass as `before` for the next page",
                    },
                },
            },
            "Record": {
                "type": "object",
                "description": f"A match record, format {FORMAT}: the full schema is "
                "libs/fairdeal/schema/match-record-v1.json (JSON Schema 2020-12).",
                "required": ["format", "match_id", "streams"],
                "properties": {
                    "format": {"type": "string", "enum": [FORMAT]},
                    "match_id": {"type": "string"},
                    "streams": {
                        "type": "object",
                        "required": ["match", "randomness"],
                        "properties": {"match": _STREAM, "randomness": _STREAM, "drand": _STREAM},
                    },
                },
            },
            "MatchView": {
                "type": "object",
                "description": "A record without its streams, plus links.",
                "required": ["format", "match_id", "complete", "status"],
                "properties": {
                    "format": {"type": "string"},
                    "match_id": {"type": "string"},
                    "complete": {"type": "boolean"},
                    "status": {"type": "string"},
                    "links": {"type": "object"},
                },
            },
            "Report": {
                "type": "object",
                "required": [
                    "format",
                    "match_id",
                    "ok",
                    "dealt_with_drand",
                    "drand_round",
                    "fallback_reason",
                    "bls_checked",
                    "failed",
                    "skipped",
                    "checks",
                ],
                "properties": {
                    "format": {"type": "string", "enum": [REPORT_FORMAT]},
                    "match_id": {"type": "string"},
                    "ok": {"type": "boolean", "description": "every check passed"},
                    "dealt_with_drand": {
                        "type": "boolean",
                        "nullable": True,
                        "description": "false: dealt without drand",
                    },
                    "drand_round": {"type": "integer", "nullable": True},
                    "fallback_reason": {"type": "string", "nullable": True},
                    "bls_checked": {"type": "boolean"},
                    "failed": {"type": "array", "items": {"type": "string"}},
                    "skipped": {"type": "array", "items": {"type": "string"}},
                    "platform": {
                        "type": "object",
                        "description": "a stored match's report only: the platform's rates "
                        "(fallbacks, aborts after a deck, missing seeds, rounds missed), all "
                        "time, as /v1/stats gives them",
                    },
                    "checks": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["name", "status", "detail", "differences"],
                            "properties": {
                                "name": {
                                    "type": "string",
                                    "enum": [*CHECKS, *PLATFORM_CHECKS, "drand_relay"],
                                },
                                "status": {"type": "string", "enum": ["pass", "fail", "skip"]},
                                "detail": {"type": "string"},
                                "differences": {"type": "array", "items": {"type": "object"}},
                            },
                        },
                    },
                },
            },
            "Receipt": {
                "type": "object",
                "required": ["match_id", "seat", "seed_sha256", "stream", "version", "signature"],
                "properties": {
                    "match_id": {"type": "string"},
                    "seat": {"type": "integer", "minimum": 0},
                    "seed_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                    "stream": {"type": "string"},
                    "version": {"type": "integer", "minimum": 1},
                    "signature": {"type": "string", "pattern": "^[0-9a-f]{128}$"},
                },
            },
            "Analysis": {
                "type": "object",
                "required": ["format", "match_id", "ruleset", "deals", "seats"],
                "properties": {
                    "format": {"const": "belot-analysis/1"},
                    "match_id": {"type": "string"},
                    "ruleset": {"type": "string"},
                    "deals": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["deal", "strain", "taker", "cards", "contracts"],
                            "properties": {
                                "deal": {"type": "integer"},
                                "strain": {"type": "string"},
                                "taker": {"type": ["integer", "null"]},
                                "cards": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "required": [
                                            "deal",
                                            "trick",
                                            "index",
                                            "seat",
                                            "card",
                                            "values",
                                            "best",
                                            "loss",
                                        ],
                                        "properties": {
                                            "card": {"type": "string"},
                                            "values": {
                                                "type": "object",
                                                "additionalProperties": {"type": "integer"},
                                            },
                                            "best": {"type": "array", "items": {"type": "string"}},
                                            "loss": {"type": "integer", "minimum": 0},
                                        },
                                    },
                                },
                                "contracts": {"type": "array"},
                            },
                        },
                    },
                    "seats": {"type": "array"},
                },
            },
            "Receipts": {
                "type": "object",
                "required": ["match_id", "receipts"],
                "properties": {
                    "match_id": {"type": "string"},
                    "receipts": {
                        "type": "array",
                        "items": {"$ref": "#/components/schemas/Receipt"},
                    },
                },
            },
            "Published": {
                "type": "object",
                "required": ["receipt", "stored"],
                "properties": {
                    "receipt": {"$ref": "#/components/schemas/Receipt"},
                    "stored": {"type": "boolean"},
                },
            },
            "CommitmentUsers": {
                "type": "object",
                "required": ["commitment", "matches", "used_twice"],
                "properties": {
                    "commitment": {"type": "string"},
                    "matches": {"type": "array", "items": {"type": "string"}},
                    "used_twice": {"type": "boolean"},
                },
            },
            "Round": {
                "type": "object",
                "required": ["chain", "round", "fact", "matches", "consistent", "deviating"],
                "properties": {
                    "chain": {"type": "string"},
                    "round": {"type": "integer"},
                    "fact": {
                        "type": "string",
                        "nullable": True,
                        "enum": ["DrandRoundBeacon", "DrandRoundMissed", None],
                    },
                    "matches": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["match_id", "dealt_with_drand"],
                            "properties": {
                                "match_id": {"type": "string"},
                                "dealt_with_drand": {"type": "boolean", "nullable": True},
                            },
                        },
                    },
                    "consistent": {
                        "type": "boolean",
                        "description": "a fact is recorded and every match that named the "
                        "round followed it",
                    },
                    "deviating": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "the matches that did not follow the round's fact",
                    },
                },
            },
            "Stats": {
                "type": "object",
                "required": ["all", "last_24h"],
                "properties": {
                    "all": {"$ref": "#/components/schemas/StatsWindow"},
                    "last_24h": {"$ref": "#/components/schemas/StatsWindow"},
                },
            },
            "StatsWindow": {
                "type": "object",
                "required": ["rounds", "matches", "seats", "commitments_used_twice"],
                "properties": {
                    "rounds": {"type": "object"},
                    "matches": {"type": "object"},
                    "seats": {"type": "object"},
                    "commitments_used_twice": {"type": "integer"},
                },
            },
            "Deck": {
                "type": "object",
                "required": ["deck", "deal", "cards", "inputs"],
                "properties": {
                    "deck": {"type": "array", "items": {"type": "string"}},
                    "deal": {"type": "integer"},
                    "cards": {"type": "integer"},
                    "inputs": {"type": "object"},
                },
            },
        },
    },
}
