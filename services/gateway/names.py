"""Account names in any script, and when two are the same name (pure).

A player signs up as "Иван", "Ivan", "Ιωάννης" or "Jean-Éric": letters and digits of
any one script, with ``_``, ``.`` and ``-``, 3 to 32 characters after NFKC
normalisation (so a full-width "Ｉｖａｎ" is "Ivan"). Refused, each with its reason:

- a character that is not a letter, a digit, a combining mark or ``_ . -``: controls
  (NUL among them), format characters (the bidi overrides that make "ابc" read
  backwards, the zero-width joiners that hide between letters), spaces, symbols;
- letters of two scripts in one name: a Latin name with one Cyrillic "а" in it is how
  a look-alike of somebody's name is made (Unicode Technical Standard #39, "mixed
  script"), so one script per name (digits and ``_ . -`` go with any).

Two names are the same account name when their **keys** are equal: the name in
capitals, each character replaced by the representative of its look-alikes, then
case-folded (:func:`name_key`), so "IVAN" and "ivan" cannot be two accounts, nor can a
whole-Cyrillic "ВАС" (or "вас") next to a Latin "BAC". The look-alike data
is Unicode's own confusables (``confusables.txt``, UTS #39), as the maintained
``confusable-homoglyphs`` package ships it with the scripts of every character
(``categories.json``, from Unicode's ``Scripts.txt``): nothing of Unicode's tables is
written here. The representative of a character is the lowest code point among it and
its look-alikes, a fixed choice that maps every member of a look-alike set the same
way (``a``, ``а``, ``ɑ`` and ``α`` all to ``a``); the standard's own skeleton maps to a
prototype instead, which the package does not ship, and the key needs only to be the
same for look-alikes and stable across releases of the data we pin. The sets are the
data's look-alike pairs closed under reachability (:func:`_representative`).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Final

from confusable_homoglyphs import categories, confusables

MIN_NAME: Final = 3
MAX_NAME: Final = 32
#: What a name may hold besides letters, digits and combining marks.
PUNCTUATION: Final = frozenset("_.-")
#: Scripts that go with any other (digits, ``_ . -``, combining marks).
ANY_SCRIPT: Final = frozenset({"COMMON", "INHERITED"})
#: A look-alike set is at most this large (the largest in Unicode's data has a few dozen).
_MAX_SET: Final = 512
#: Unicode categories a name's characters may be in: letters, marks, decimal digits.
_ALLOWED: Final = ("L", "M", "Nd")


class NameError_(ValueError):
    """A name refused, with its reason in words and as ``details`` a client says in its
    player's language: ``{"reason": "not_text" | "length" | "character" | "scripts" |
    "no_letter", ...}`` with the length, the character's code point and kind
    (``control``, ``format``, ``space``, ``other``) or the scripts mixed (``code`` is
    ``bad_name``)."""

    code: Final = "bad_name"

    def __init__(self, message: str, reason: str, **facts: object) -> None:
        super().__init__(message)
        self.details: dict[str, object] = {"reason": reason, **facts}


@dataclass(frozen=True, slots=True)
class AccountName:
    """A name as it is shown (NFKC) and the key that makes it unique."""

    display: str
    key: str


def account_name(value: object) -> AccountName:
    """The account name ``value`` makes, or :class:`NameError_` saying why not."""
    if not isinstance(value, str):
        raise NameError_("the name must be text", "not_text")
    name = unicodedata.normalize("NFKC", value)
    if not MIN_NAME <= len(name) <= MAX_NAME:
        raise NameError_(
            f"a name is {MIN_NAME} to {MAX_NAME} characters (this one is {len(name)})",
            "length",
            min=MIN_NAME,
            max=MAX_NAME,
            length=len(name),
        )
    for ch in name:
        category = unicodedata.category(ch)
        if ch in PUNCTUATION or category.startswith(_ALLOWED):
            continue
        kind = {"Cc": "control", "Cf": "format", "Zs": "space"}.get(category, "other")
        what = {
            "control": "a control character",
            "format": "an invisible formatting character (such as a direction override)",
            "space": "a space",
        }.get(kind, f"the character {ch!r}")
        raise NameError_(
            f"a name holds letters and digits, '_', '.' and '-' only, not {what} (U+{ord(ch):04X})",
            "character",
            kind=kind,
            code_point=f"U+{ord(ch):04X}",
        )
    scripts = sorted(_scripts(name) - ANY_SCRIPT)
    if len(scripts) > 1:
        raise NameError_(
            "a name is written in one script, not a mix ("
            + " and ".join(s.capitalize() for s in scripts)
            + "): mixed names are how look-alikes of others' names are made",
            "scripts",
            scripts=[s.capitalize() for s in scripts],
        )
    if not any(unicodedata.category(ch).startswith("L") for ch in name):
        raise NameError_("a name holds at least one letter", "no_letter")
    return AccountName(name, name_key(name))


def name_key(name: str) -> str:
    """The key two names share when they look alike: NFKC, in capitals, each character
    replaced by the representative of its look-alikes, case-folded, NFD. Defined for any
    text (a log-in looks its name up by key), not only for names :func:`account_name`
    takes.

    Why capitals: case must not make two names (``ivan``, ``IVAN``), and look-alikes
    across scripts are compared in the case where they coincide most (Cyrillic and
    Latin А В Е К М Н О Р С Т Х; in small letters ``в`` is not ``b``): ``вас``, ``ВАС``
    and ``BAC`` share a key. Mixed-script look-alikes never get this far (one script
    per name)."""
    upper = unicodedata.normalize("NFKC", name).upper()
    mapped = "".join(_representative(ch) for ch in unicodedata.normalize("NFD", upper))
    return unicodedata.normalize("NFD", unicodedata.normalize("NFKC", mapped).casefold())


def _alike(ch: str) -> list[str]:
    found = confusables.is_confusable(ch, greedy=True) or []
    return [h["c"] for entry in found for h in entry["homoglyphs"] if len(h["c"]) == 1]


@cache
def _representative(ch: str) -> str:
    """The lowest code point of ``ch``'s look-alike set: the characters reached from it
    through the data's look-alike pairs (a Cyrillic "О" is listed with the Latin "O"
    only, the Latin "O" with the digit "0": all three are one set)."""
    seen = {ch}
    todo = [ch]
    while todo and len(seen) < _MAX_SET:
        for other in _alike(todo.pop()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return min(seen)


def _scripts(name: str) -> set[str]:
    return {categories.aliases_categories(ch)[0] for ch in name}
