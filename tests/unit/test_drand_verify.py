"""Every recorded real beacon verifies against the pinned keys; any altered one does not."""

from __future__ import annotations

import hashlib

import pytest

from commands.cli import main
from drand import DEFAULT, QUICKNET, BeaconError, verify
from tools.drand_vectors import DEFAULT_BEACONS, QUICKNET_BEACONS


def flip(data: bytes, bit: int) -> bytes:
    i = (bit // 8) % len(data)
    return data[:i] + bytes([data[i] ^ (1 << (bit % 8))]) + data[i + 1 :]


@pytest.mark.parametrize("b", QUICKNET_BEACONS, ids=lambda b: f"quicknet-{b['round']}")
def test_quicknet_beacon_verifies(b: dict) -> None:
    sig = bytes.fromhex(b["signature"])
    beacon = verify(QUICKNET, b["round"], sig)
    assert beacon.randomness == hashlib.sha256(sig).digest()
    if "randomness" in b:
        assert beacon.randomness.hex() == b["randomness"]


@pytest.mark.parametrize("b", DEFAULT_BEACONS, ids=lambda b: f"default-{b['round']}")
def test_default_beacon_verifies(b: dict) -> None:
    sig, prev = bytes.fromhex(b["signature"]), bytes.fromhex(b["previous_signature"])
    beacon = verify(DEFAULT, b["round"], sig, prev)
    if "randomness" in b:
        assert beacon.randomness.hex() == b["randomness"]


@pytest.mark.parametrize("b", QUICKNET_BEACONS, ids=lambda b: f"quicknet-{b['round']}")
def test_quicknet_altered_beacon_fails(b: dict) -> None:
    sig = bytes.fromhex(b["signature"])
    for bit in (13, 100, 383):  # flips that keep a valid encoding, and ones that don't
        with pytest.raises(BeaconError):
            verify(QUICKNET, b["round"], flip(sig, bit))
    with pytest.raises(BeaconError):
        verify(QUICKNET, b["round"] + 1, sig)
    with pytest.raises(BeaconError):
        verify(QUICKNET, b["round"] ^ (1 << 40), sig)


@pytest.mark.parametrize("b", DEFAULT_BEACONS, ids=lambda b: f"default-{b['round']}")
def test_default_altered_beacon_fails(b: dict) -> None:
    sig, prev = bytes.fromhex(b["signature"]), bytes.fromhex(b["previous_signature"])
    with pytest.raises(BeaconError):
        verify(DEFAULT, b["round"], flip(sig, 77), prev)
    with pytest.raises(BeaconError):
        verify(DEFAULT, b["round"], sig, flip(prev, 5))
    with pytest.raises(BeaconError):
        verify(DEFAULT, b["round"] + 1, sig, prev)


@pytest.mark.parametrize(
    "sig", [b"", b"\x00" * 48, b"\xff" * 48, b"\xc0" + b"\x00" * 47, b"\x01" * 47, b"\x02" * 96]
)
def test_garbage_signature_is_a_clean_error(sig: bytes) -> None:
    # The Rust library can panic on malformed points; that must surface as BeaconError.
    with pytest.raises(BeaconError):
        verify(QUICKNET, 5, sig)


def test_chained_needs_previous_and_unchained_refuses_it() -> None:
    b = DEFAULT_BEACONS[0]
    with pytest.raises(BeaconError, match="previous signature"):
        verify(DEFAULT, b["round"], bytes.fromhex(b["signature"]))
    q = QUICKNET_BEACONS[0]
    with pytest.raises(BeaconError, match="unchained"):
        verify(QUICKNET, q["round"], bytes.fromhex(q["signature"]), b"\x00" * 48)


def test_round_time_arithmetic() -> None:
    # drand/drand common/time.go and ChainSafe/forest's tests (tests/data/DRAND.md)
    assert QUICKNET.time_of_round(1) == 1692803367
    assert QUICKNET.time_of_round(2) == 1692803370
    assert QUICKNET.time_of_round(100) == 1692803367 + 99 * 3
    assert QUICKNET.round_at(1692803367) == 1
    assert QUICKNET.round_at(1692803369.9) == 1
    assert QUICKNET.round_at(1692803370) == 2
    assert QUICKNET.round_at(0) == 1
    assert QUICKNET.next_round_after(1692803370) == 3
    assert DEFAULT.time_of_round(2) == 1595431080
    with pytest.raises(ValueError):
        QUICKNET.time_of_round(0)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_check_quicknet(capsys) -> None:
    b = QUICKNET_BEACONS[0]
    code, out, _ = run(
        capsys, "drand", "check", "--round", str(b["round"]), "--signature", b["signature"]
    )
    assert (code, out) == (0, b["randomness"] + "\n")
    code, out, err = run(
        capsys, "drand", "check", "--round", str(b["round"] + 1), "--signature", b["signature"]
    )
    assert (code, out) == (1, "")
    assert "does not verify" in err


def test_cli_check_default(capsys) -> None:
    b = DEFAULT_BEACONS[0]
    argv = ["drand", "check", "--chain", "default", "--round", str(b["round"])]
    code, out, _ = run(
        capsys,
        *argv,
        "--signature",
        b["signature"],
        "--previous-signature",
        b["previous_signature"],
    )
    assert (code, out) == (0, b["randomness"] + "\n")
    code, _, err = run(capsys, *argv, "--signature", b["signature"])
    assert code == 2 and "--previous-signature" in err


@pytest.mark.parametrize(
    "argv,msg",
    [
        (["--round", "x", "--signature", "00"], "not a whole number"),
        (["--round", "1", "--signature", "zz"], "not hexadecimal"),
        (["--round", "1", "--signature", "00", "--previous-signature", "00"], "unchained"),
    ],
)
def test_cli_check_bad_input(capsys, argv, msg) -> None:
    code, out, err = run(capsys, "drand", "check", *argv)
    assert (code, out) == (2, "")
    assert msg in err and err.count("\n") == 1
