"""The strings a request brings, checked where it comes in, before any side effect.

Why here and not where they are stored: PostgreSQL refuses a NUL character in ``text``
and in ``jsonb``, and a lone surrogate (half a UTF-16 pair, which JSON's ``"\\ud800"``
escape can carry and Python keeps) cannot be encoded as UTF-8 at all. Either one,
reaching a query or an event, fails the request only after whatever it did first (a KV
line, a lease), and as a 500. A value of no bounded length fills events and indexes
(PostgreSQL's unique index on command ids refuses entries over about 2.7 kB).

So every service's boundary does two things:

- :func:`decode` parses a request body (an HTTP body, a NATS request) and refuses any
  string in it, keys included, that holds a NUL or a lone surrogate, naming where it is
  (``seats[1].player``). Nothing past the boundary sees such a string.
- the handlers read each field through :func:`text` and friends, which check its type
  and its length and name the field.

Both raise :class:`FieldError` (code ``bad_request`` unless a more precise one is
given), which each service answers as its 400 ``{"error": code, "message": text}``.
Every service uses this module: the bounds are the same wherever a value enters.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

import orjson

BAD_REQUEST: Final = "bad_request"

#: An account id, a player id, a creator or an entrant: the gateway's ids are 32 hex
#: digits, a tournament's creator ``tournament:<id>``; 200 leaves room and stays small.
MAX_ID: Final = 200
#: A client's command id (a retry sends the same).
MAX_COMMAND_ID: Final = 100
#: A reason or similar free text an operator or organiser writes into an event.
MAX_TEXT: Final = 500
#: A query parameter or path segment that is compared, never stored.
MAX_QUERY: Final = 200
#: How much of a refused value a message quotes (an oversized value is not echoed whole).
QUOTE: Final = 40


class FieldError(ValueError):
    """A field the request may not carry: ``field`` names it (``seats[1].player``),
    ``message`` says what is wrong in words that start with the field."""

    def __init__(self, field: str, problem: str, code: str = BAD_REQUEST) -> None:
        self.field = field
        self.code = code
        self.message = f"{field} {problem}"
        super().__init__(self.message)


def quote(value: object) -> str:
    """``value`` for a message: its repr (NULs and surrogates escaped), cut short."""
    text = repr(value)
    return text if len(text) <= QUOTE else f"{text[: QUOTE - 5]}...{text[-1]}"


def problem_of(value: str) -> str | None:
    """What PostgreSQL or UTF-8 would refuse in ``value``, in words; None if nothing."""
    if "\x00" in value:
        return "holds a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "holds a lone surrogate (half a UTF-16 pair)"
    return None


def characters(field: str, value: str) -> str:
    """``value`` if it holds no NUL and no lone surrogate; raises :class:`FieldError`."""
    problem = problem_of(value)
    if problem is not None:
        raise FieldError(field, problem)
    return value


def text(field: str, value: Any, max_len: int, *, min_len: int = 1, what: str | None = None) -> str:
    """``value`` if it is a string of ``min_len`` to ``max_len`` characters with no NUL
    and no lone surrogate; raises :class:`FieldError` naming ``field``. ``what`` says
    what the string must be, for the message (default: "a string of 1 to N
    characters")."""
    what = what or f"a string of {min_len} to {max_len} characters"
    if not isinstance(value, str):
        raise FieldError(field, f"must be {what}")
    characters(field, value)
    if len(value) > max_len:
        raise FieldError(field, f"is {len(value)} characters long: at most {max_len}")
    if len(value) < min_len:
        raise FieldError(field, f"must be {what}")
    return value


def optional_text(
    field: str, value: Any, max_len: int, *, min_len: int = 1, what: str | None = None
) -> str | None:
    """None for None, else :func:`text`."""
    return None if value is None else text(field, value, max_len, min_len=min_len, what=what)


def identifier(field: str, value: Any) -> str:
    """An account, player or entrant id: a string of 1 to :data:`MAX_ID` characters."""
    return text(field, value, MAX_ID, what=f"an id of 1 to {MAX_ID} characters")


def command_id(value: Any, field: str = "command_id") -> str | None:
    """A client's command id: absent (None), or a string of 1 to
    :data:`MAX_COMMAND_ID` characters."""
    return optional_text(field, value, MAX_COMMAND_ID)


def parse_hex(field: str, text: str, sizes: tuple[int, ...]) -> bytes:
    """Hex digits (an optional ``0x``) of one of ``sizes`` bytes, from a command line's
    flag or a query parameter; raises :class:`FieldError`."""
    digits = text[2:] if text[:2].lower() == "0x" else text
    if any(c not in "0123456789abcdefABCDEF" for c in digits) or len(digits) % 2:
        raise FieldError(field, f"{text!r} is not hexadecimal (an even number of 0-9 a-f)")
    value = bytes.fromhex(digits)
    if len(value) not in sizes:
        want = " or ".join(str(s) for s in sizes)
        raise FieldError(field, f"is {len(value)} bytes, it must be {want} bytes")
    return value


def parse_int(field: str, text: str, high: int) -> int:
    """A whole number from 0 to ``high`` written in decimal ASCII digits only: no sign
    but a minus, no spaces, no ``_``, no other scripts' digits (all of which ``int()``
    would take); raises :class:`FieldError`."""
    if re.fullmatch(r"-?[0-9]+", text) is None:
        raise FieldError(field, f"{text!r} is not a whole number (decimal digits 0-9)")
    value = int(text, 10)
    if not 0 <= value <= high:
        raise FieldError(field, f"{value} is outside 0..{high}")
    return value


def scan(value: Any, root: str = "the body") -> None:
    """Refuse the first string of a decoded JSON value, keys included, that holds a NUL
    or a lone surrogate, naming where it is (``seats[1].player``; ``root`` for the
    value itself)."""
    # An explicit stack, not recursion: a deeply nested body must not blow the stack.
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            characters(where or root, item)
        elif isinstance(item, dict):
            for key, child in item.items():
                problem = problem_of(key) if isinstance(key, str) else None
                if problem is not None:
                    raise FieldError(f"a key of {where or root}", f"({quote(key)}) {problem}")
                stack.append((child, f"{where}.{key}" if where else str(key)))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{n}]") for n, child in enumerate(item))


def decode(raw: bytes | str, what: str = "the body") -> Any:
    """A request body (JSON) decoded and scanned (:func:`scan`); raises
    :class:`FieldError` for one that is not JSON or that carries a string PostgreSQL
    cannot hold. ``what`` names the body in the messages."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        # orjson refuses a lone surrogate's escape with the whole body; the standard
        # library takes it, so that the message can name the field that holds it.
        try:
            loose = json.loads(raw)
        except (ValueError, RecursionError):
            raise FieldError(what, "is not valid JSON") from None
        scan(loose, what)
        raise FieldError(what, "is not valid JSON") from None  # NaN, Infinity and the like
    scan(data, what)
    return data
