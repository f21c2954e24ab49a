"""Account names in any script (services/gateway/names.py), as a table: what is taken,
what is refused and why, and which names are one name (case, look-alikes)."""

from __future__ import annotations

import pytest

from services.gateway.names import NameError_, account_name, name_key

TAKEN = [
    # (given, shown)
    ("Иван", "Иван"),
    ("Ivan", "Ivan"),
    ("Ιωάννης", "Ιωάννης"),
    ("Jean-Éric", "Jean-Éric"),
    ("Стоян_2", "Стоян_2"),
    ("ann.bo", "ann.bo"),
    ("Ｉｖａｎ", "Ivan"),  # full-width letters: NFKC makes them the plain ones
    ("И\u0306ордан", "Йордан"),  # decomposed: NFKC composes it
]

REFUSED = [
    # (given, the reason says, the reason's facts: what the web client says in its
    # player's language)
    ("Iv\u0430n", "one script, not a mix (Cyrillic and Latin)",
     {"reason": "scripts", "scripts": ["Cyrillic", "Latin"]}),  # a Cyrillic "а" in Latin
    ("ab\x00c", "control character (U+0000)",
     {"reason": "character", "kind": "control", "code_point": "U+0000"}),
    ("ab\x07c", "control character (U+0007)",
     {"reason": "character", "kind": "control", "code_point": "U+0007"}),
    ("ab\u202ec", "invisible formatting character",
     {"reason": "character", "kind": "format", "code_point": "U+202E"}),  # right-to-left
    ("ab\u200dc", "invisible formatting character",
     {"reason": "character", "kind": "format", "code_point": "U+200D"}),  # zero-width joiner
    ("ann bo", "a space", {"reason": "character", "kind": "space", "code_point": "U+0020"}),
    ("ann♠", "the character '♠'", {"reason": "character", "kind": "other", "code_point": "U+2660"}),
    ("ab", "3 to 32 characters (this one is 2)",
     {"reason": "length", "min": 3, "max": 32, "length": 2}),
    ("a" * 33, "3 to 32 characters (this one is 33)",
     {"reason": "length", "min": 3, "max": 32, "length": 33}),
    ("123", "at least one letter", {"reason": "no_letter"}),
    (None, "must be text", {"reason": "not_text"}),
]  # fmt: skip


@pytest.mark.parametrize(("given", "shown"), TAKEN)
def test_a_name_of_letters_of_one_script_is_taken(given: str, shown: str) -> None:
    assert account_name(given).display == shown


@pytest.mark.parametrize(("given", "said", "facts"), REFUSED)
def test_a_name_is_refused_saying_why(given: object, said: str, facts: dict) -> None:
    with pytest.raises(NameError_) as refused:
        account_name(given)
    assert said in str(refused.value)
    assert refused.value.code == "bad_name"
    assert refused.value.details == facts


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Ivan", "IVAN"),  # case
        ("Иван", "ИВАН"),
        ("BAC", "ВАС"),  # a whole-Cyrillic look-alike of a Latin name
        ("BAC", "вас"),
        ("cop", "сор"),  # through the look-alike set of O (Latin, Cyrillic, zero)
        ("Ivan", "Ｉｖａｎ"),
        ("straße", "STRASSE"),
    ],
)
def test_look_alikes_and_case_make_one_name(a: str, b: str) -> None:
    assert name_key(a) == name_key(b)


@pytest.mark.parametrize(("a", "b"), [("Иван", "Ivan"), ("ann", "anna"), ("Стоян", "Стойн")])
def test_different_names_keep_different_keys(a: str, b: str) -> None:
    assert name_key(a) != name_key(b)
