"""Every error code a page can be answered with has its own words in the web client.

The codes are read from the source of what answers the pages: the gateway (its own
codes, and those it passes on from the table workers, the randomness service, the game's
and the fair deal's rules, the request plumbing and the tournament service) and the
verify API (finished matches and replays). The client's words are the catalogues'
``error.<code>`` keys (web/js/lang/), one catalogue per language, read here through Node
(web/js/i18n.js). A new code in the services fails this test until the client says it in
plain words in every language; web/test/errors.test.mjs checks the words themselves.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.node import NODE, ROOT, node_output

SOURCES = (
    *("services/gateway", "services/table", "services/randomness", "services/tournament"),
    *("services/verify", "libs/belot/errors.py", "libs/fairdeal/fairness.py"),
    *("libs/tournament/errors.py", "libs/belot_platform/messaging.py"),
    *("libs/belot_platform/outage.py", "libs/belot_platform/fields.py"),
)
#: What raises or answers an error, its code the first argument: the one refusal type
#: and its thin subclasses, the fair deal's error, the HTTP answer (the platform's and
#: the gateway's counted one) and the randomness service's helper.
RAISERS = frozenset(
    {"ServiceError", "TableError", "Refused", "FairnessError", "error_response", "refuse"}
    | {"_bad"}
)
#: Codes made at run time: the source's f-string, and every code it can make.
MADE = {
    # the verify API's _query_int(request, name, ...), for limit and before
    "bad_{name}": {"bad_limit", "bad_before"},
}
#: Codes no call above names: the gateway's and the verify API's answers to aiohttp's
#: own HTTP errors (the gateway's made from the reason in snake case), and the client's
#: own (nothing answered).
OTHER = {
    *("not_found", "method_not_allowed", "request_entity_too_large"),
    *("too_large", "unsupported_media_type", "network"),
}


def python_files() -> Iterator[Path]:
    for source in SOURCES:
        path = ROOT / source
        yield from sorted(path.glob("*.py")) if path.is_dir() else (path,)


def constants(trees: list[ast.Module]) -> dict[str, str]:
    """Module-level text constants (``BAD_REQUEST: Final = "bad_request"``)."""
    found: dict[str, str] = {}
    for tree in trees:
        for node in tree.body:
            target = value = None
            if isinstance(node, ast.AnnAssign):
                target, value = node.target, node.value
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            if (
                isinstance(target, ast.Name)
                and isinstance(value, ast.Constant)
                and isinstance(value.value, str)
            ):
                found[target.id] = value.value
    return found


def passed_on(node: ast.expr) -> bool:
    """A code handed on from elsewhere (``exc.code``, a ``code`` parameter, ``reply["error"]``):
    its source is read where it is made."""
    return (
        (isinstance(node, ast.Attribute) and node.attr == "code")
        or (isinstance(node, ast.Name) and node.id == "code")
        or isinstance(node, ast.Subscript)
    )


def service_codes() -> set[str]:
    files = {
        p.relative_to(ROOT): ast.parse(p.read_text(encoding="utf-8"), str(p))
        for p in python_files()
    }
    names = constants(list(files.values()))
    codes: set[str] = set()
    unread: list[str] = []

    def read(node: ast.expr, where: str) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            codes.add(node.value)
        elif isinstance(node, ast.Name) and node.id in names:
            codes.add(names[node.id])
        elif isinstance(node, ast.Attribute) and node.attr in names:  # outage.UNAVAILABLE
            codes.add(names[node.attr])
        elif isinstance(node, ast.JoinedStr) and ast.unparse(node)[2:-1] in MADE:
            codes.update(MADE[ast.unparse(node)[2:-1]])
        elif not passed_on(node):
            unread.append(f"{where}: {ast.unparse(node)}")

    for path, tree in files.items():
        for node in ast.walk(tree):
            where = f"{path}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                args = node.args
                if node.func.id not in RAISERS or not args:
                    continue
                if node.func.id == "_bad" and len(args) == 1:
                    continue  # the randomness service's _bad(message): bad_request
                read(args[0], where)
            elif isinstance(node, ast.ClassDef):
                # The rules' errors: class IllegalCard(RulesError): code = "illegal_card"
                for item in node.body:
                    target = item.target if isinstance(item, ast.AnnAssign) else None
                    if isinstance(item, ast.Assign) and len(item.targets) == 1:
                        target = item.targets[0]
                    value = getattr(item, "value", None)
                    if isinstance(target, ast.Name) and target.id == "code" and value:
                        read(value, where)
            elif isinstance(node, ast.Dict):
                # A reply written out: {"error": "table_moved", "message": ...}
                for key, value in zip(node.keys, node.values, strict=True):
                    is_code = isinstance(key, ast.Constant) and key.value == "error"
                    if is_code and not isinstance(value, ast.Dict):  # not an OpenAPI schema
                        read(value, where)
    assert not unread, f"error codes this test cannot read: {unread}"
    return codes | OTHER


def client_words(codes: set[str]) -> dict[str, dict[str, str | None]]:
    """The words each catalogue has for each of ``codes`` (and for the codes the client
    lists, ui.js ERROR_CODES), by language: None where a catalogue has none."""
    script = (
        "const i18n = await import('./web/js/i18n.js');"
        "const ui = await import('./web/js/ui.js');"
        f"const codes = [...new Set([...{json.dumps(sorted(codes))}, ...ui.ERROR_CODES])];"
        "const words = {};"
        "for (const language of i18n.LANGUAGES) {"
        "  i18n.setLanguage(language);"
        "  words[language] = Object.fromEntries(codes.map((code) =>"
        "    [code, i18n.has(`error.${code}`) ? i18n.t(`error.${code}`) : null]));"
        "}"
        "process.stdout.write(JSON.stringify(words));"
    )
    words: dict[str, dict[str, str | None]] = json.loads(node_output(script))
    return words


def test_the_sources_name_the_codes_we_know() -> None:
    """The scan itself works: codes from each kind of source are found."""
    codes = service_codes()
    for code in (
        "illegal_card",  # belot's RulesError subclasses
        "seed_window_closed",  # fairdeal's FairnessError
        "seat_reserved",  # the table service's TableError
        "seed_not_hex",  # the randomness service's ServiceError
        "table_moved",  # a reply written out
        "bad_request",  # messaging.BAD_REQUEST
        "table_unavailable",  # the gateway's own ServiceError
        "unknown_tournament",  # the tournament service
        "seed_not_revealed",  # the verify API's
        "bad_limit",  # the verify API, made at run time
    ):
        assert code in codes, code


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed: the client's words need it")
def test_every_code_has_words_in_the_client() -> None:
    words = client_words(service_codes())
    assert set(words) == {"ru", "bg", "en", "fr"}, sorted(words)
    missing = [
        f"{code} ({language})"
        for language, said in words.items()
        for code, text in sorted(said.items())
        if not text
    ]
    assert not missing, f"the catalogues say nothing for: {', '.join(missing)}"


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed: the client's words need it")
def test_a_refused_card_is_said_in_russian() -> None:
    """In Russian the server's English reason is not shown: the refusal's details are said
    instead, the suit to follow and the cards that may be played among them."""
    refusal = {
        "code": "illegal_card",
        "message": "AH may not be played: you must follow diamonds (allowed: 8D KD)",
        "details": {"card": "AH", "rule": "follow", "suit": "D", "allowed": ["8D", "KD"]},
    }
    script = (
        "const i18n = await import('./web/js/i18n.js');"
        "const ui = await import('./web/js/ui.js');"
        "const cards = await import('./web/js/cards.js');"
        "i18n.setLanguage('ru');"
        f"const err = Object.assign(new Error({json.dumps(refusal['message'])}),"
        f" {json.dumps(refusal)});"
        "process.stdout.write(JSON.stringify({"
        "  said: ui.errorText(err), words: ui.errorWords('illegal_card'),"
        "  cards: ['AH', '8D', 'KD'].map(cards.cardLabel)}));"
    )
    out = json.loads(node_output(script))
    said, words, (refused, *allowed) = out["said"], out["words"], out["cards"]
    assert said.startswith(words), said
    assert "бубны" in said, said  # the suit to follow
    assert refused in said, said
    assert f"Можно сыграть {allowed[0]} или {allowed[1]}" in said, said
    assert "may not be played" not in said and "diamonds" not in said, said
    assert "allowed" not in said and "follow" not in said, said
    assert sum("а" <= c.lower() <= "я" for c in said) > 30, said  # a Russian sentence
