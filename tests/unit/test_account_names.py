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
    # (given, the reason says)
    ("Iv\u0430n", "one script, not a mix (Cyrillic and Latin)"),  # a Cyrillic "а" in Latin
    ("ab\x00c", "control character (U+0000)"),
    ("ab\x07c", "control character (U+0007)"),
    ("ab\u202ec", "invisible formatting character"),  # right-to-left override
    ("ab\u200dc", "invisible formatting character"),  # zero-width joiner
    ("ann bo", "a space"),
    ("ann♠", "the character '♠'"),
    ("ab", "3 to 32 characters (this one is 2)"),
    ("a" * 33, "3 to 32 characters (this one is 33)"),
    ("123", "at least one letter"),
    (None, "must be text"),
]


@pytest.mark.parametrize(("given", "shown"), TAKEN)
def test_a_name_of_letters_of_one_script_is_taken(given: str, shown: str) -> None:
    assert account_name(given).display == shown


@pytest.mark.parametrize(("given", "said"), REFUSED)
def test_a_name_is_refused_saying_why(given: object, said: str) -> None:
    with pytest.raises(NameError_) as refused:
        account_name(given)
    assert said in str(refused.value)
    assert refused.value.code == "bad_name"


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
