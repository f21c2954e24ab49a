"""``belot witness``: a witness of the transparency log, which anyone can run against the
public API with a key of their own.

    belot witness keygen NAME --key FILE          make a witness key; print its vkey
    belot witness run --api URL --log-key VKEY --key FILE --state FILE [--once]
                      [--interval S]
                      [--register]

What a run does, each ``--interval`` seconds (once with ``--once``; 1 s by default, see
below): fetch the log's
latest checkpoint and check the log's signature on it (``--log-key``, the vkey the log
publishes; its name is the origin); read the last checkpoint this witness cosigned from
``--state`` (none: the empty tree); if the new one is larger, fetch a consistency proof
between the two and check it (RFC 9162); then cosign the new checkpoint with the
witness's key and its own clock (C2SP tlog-cosignature: "at this time, this was the
largest tree I had seen, consistent with all before"), POST the cosignature to the log,
and only then keep the new checkpoint in ``--state`` (written to a temporary file and
renamed, so a crash leaves the old or the new, never half of one).

With ``--register`` the witness first registers its key with the log (``POST
/v1/log/witnesses``), so that a log whose operator did not configure it takes and
serves its cosignatures, and registers again every so often to renew it: a
registration expires unless renewed (so that one abandoned, or one of a stranger's
many, frees its slot), and each cosignature renews it too, but only when the log grew
since the last. It renews after a quarter of what is left of its term (the answer's
``expires_at``, read on the witness's own clock, which must be right anyway: its
cosignatures are its clock's word), and at least every 5 minutes. Registering earns no
trust: readers name the witnesses they trust. A log that refuses the first
registration (malformed, another key of that name, its limits on registrations
reached: the message says when a slot frees) is bad input: one line, exit 2; a log
that does not answer is asked again at the next round. A renewal refused later (the
registration lapsed while the witness was down and its slot went to another) is one
line on stderr and asked again a minute later: the witness keeps its state and goes on.

Why every second: a witness's cosignature is what shows that a match named its drand
round before the round was due (``log_timing``); the fair deal names the first round due
more than its lead (6 s, ``fairdeal.fairness.ROUND_LEAD_MS``) after its seed window closed,
and the log signs a checkpoint every second, so a witness that polls every second
cosigns the naming about 2 s after it, well within the lead. One request a second (and a
consistency proof when the tree grew) is little for the log, which serves such reads to
everyone; a witness polling less often than the lead allows misses the rounds it was
run to witness.

A *split view* is refused: a checkpoint smaller than the kept one, one of the same size
with another root, or one the proof does not show to extend the kept one. The witness
then never cosigns it, keeps its state as it was (the log cannot talk it out of what it
saw), prints one line on stderr and exits 1: a split view is not an outage to wait out,
it is the log showing two histories, and someone must look. Anything else that goes
wrong (the log unreachable, an HTTP error) is printed and retried at the next interval,
or exit 2 with ``--once``. Bad input (no key file, a bad vkey): one line, exit 2.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import secrets
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Final

from belot_platform.errors import EXIT_USAGE, UsageError
from commands.translog_client import LogClient, LogUnavailable
from translog import (
    Checkpoint,
    Cosigner,
    Ed25519Verifier,
    TranslogError,
    open_checkpoint,
    parse_skey,
    parse_vkey,
    verify_consistency,
)
from translog.note import Note

#: Seconds between two rounds of ``run`` (the module docstring says why every second).
DEFAULT_INTERVAL_S: Final = 1.0
#: Renewing a registration (the module docstring says when): at least this often, and
#: at most this often, in seconds; a refused renewal is asked again after RETRY.
RENEW_AT_MOST_S: Final = 300.0
RENEW_AT_LEAST_S: Final = 1.0
RENEW_RETRY_S: Final = 60.0

EXIT_OK: Final = 0
EXIT_SPLIT_VIEW: Final = 1
# EXIT_USAGE (2, bad input: a UsageError, one line on stderr) is the platform's.


class SplitView(Exception):
    """The log showed a checkpoint that does not extend the one the witness kept."""


@dataclass(frozen=True, slots=True)
class Witness:
    """A witness's keys and the file it keeps its last cosigned checkpoint in."""

    log: Ed25519Verifier
    key: Cosigner
    state: Path

    def kept(self) -> Checkpoint | None:
        """The last checkpoint this witness cosigned (its log signature checked again:
        a state file someone edited is refused as bad input)."""
        try:
            text = self.state.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise UsageError(f"{self.state}: {exc.strerror or exc}") from None
        try:
            return open_checkpoint(text, self.log).checkpoint
        except TranslogError as exc:
            raise UsageError(f"{self.state}: not a checkpoint of this log: {exc.message}") from None

    def keep(self, note: Note) -> None:
        tmp = self.state.with_name(self.state.name + ".tmp")
        tmp.write_text(note.to_text(), encoding="utf-8")
        os.replace(tmp, self.state)


def check_extends(
    kept: Checkpoint | None, new: Checkpoint, proof: tuple[bytes, ...] | None
) -> None:
    """Raises :class:`SplitView` unless ``new`` extends ``kept`` (``proof``: the
    consistency proof between them, None when the sizes need none)."""
    if kept is None:
        return
    if new.size < kept.size:
        raise SplitView(
            f"split view: the log's checkpoint has {new.size} entries, fewer than the "
            f"{kept.size} this witness cosigned"
        )
    if new.size == kept.size:
        if new.root_hash != kept.root_hash:
            raise SplitView(f"split view: two different trees of {new.size} entries")
        return
    try:
        verify_consistency(kept.size, new.size, proof or (), kept.root_hash, new.root_hash)
    except TranslogError as exc:
        raise SplitView(
            f"split view: the tree of {new.size} entries does not extend the tree of "
            f"{kept.size} this witness cosigned ({exc.message})"
        ) from None


async def witness_once(witness: Witness, api: str, clock: Callable[[], float] = time.time) -> str:
    """One round: returns what it did, in one line. Raises :class:`SplitView`,
    :class:`LogUnavailable` or :class:`UsageError`."""
    kept = witness.kept()
    async with LogClient(api) as log:
        text = await log.checkpoint()
        try:
            signed = open_checkpoint(text, witness.log)
        except TranslogError as exc:
            raise LogUnavailable(f"the log's checkpoint does not verify: {exc.message}") from None
        new = signed.checkpoint
        proof = None
        if kept is not None and 0 < kept.size < new.size:
            proof = await log.consistency(kept.size, new.size)
        check_extends(kept, new, proof)
        if kept is not None and kept.size == new.size and _cosigned_by(signed.note, witness.key):
            # The log serves our line already: nothing to send. (This asked for a
            # cosignature the opening above never checks, being given no witness key,
            # so every round sent the same checkpoint again, one POST a second.)
            return f"size {new.size}: unchanged, cosigned already"
        # The log's own signature line and ours: what the log keeps and serves.
        own = signed.note.signatures[0] if signed.note.signatures else None
        log_line = next(
            (s for s in signed.note.signatures if s.key == (witness.log.name, witness.log.key_id)),
            own,
        )
        assert log_line is not None  # open_checkpoint checked the log signed it
        cosignature = witness.key.sign(new.to_text(), int(clock()))
        note = Note(new.to_text(), (log_line, cosignature))
        await log.cosign(note.to_text())
        witness.keep(Note(new.to_text(), (log_line,)))
        return f"size {new.size}: cosigned at {int(clock())}"


def _cosigned_by(note: Note, key: Cosigner) -> bool:
    """Whether ``note`` carries a cosignature of ``key`` that verifies (a line under our
    name that does not is the log's forgery, and not ours: we cosign again)."""
    mine = key.verifier()
    return any(
        s.key == (mine.name, mine.key_id) and mine.verify(note.text, s.data)
        for s in note.signatures
    )


def _load_witness(args: argparse.Namespace) -> Witness:
    try:
        log = parse_vkey(args.log_key)
    except TranslogError as exc:
        raise UsageError(f"--log-key: {exc.message}") from None
    if not isinstance(log, Ed25519Verifier):
        raise UsageError("--log-key: the log's key is an Ed25519 note key (type 0x01)")
    try:
        key = parse_skey(Path(args.key).read_text(encoding="utf-8").strip())
    except OSError as exc:
        raise UsageError(f"--key {args.key}: {exc.strerror or exc}") from None
    except TranslogError as exc:
        raise UsageError(f"--key {args.key}: {exc.message}") from None
    if not isinstance(key, Cosigner):
        raise UsageError(f"--key {args.key}: not a witness key (make one: belot witness keygen)")
    return Witness(log, key, Path(args.state))


@dataclass(frozen=True, slots=True)
class Registered:
    """What the log answered a registration: one line to print, and in how many
    seconds to renew it."""

    line: str
    renew_in: float


def renew_in(expires_at: object, now: float) -> float:
    """Seconds until a registration ending at ``expires_at`` (the log's ISO time, or
    None for a configured witness, which needs no renewal) should be renewed: a quarter
    of what is left, within [RENEW_AT_LEAST_S, RENEW_AT_MOST_S]."""
    if not isinstance(expires_at, str):
        return RENEW_AT_MOST_S
    try:
        end = datetime.fromisoformat(expires_at.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return RENEW_AT_MOST_S
    return min(RENEW_AT_MOST_S, max(RENEW_AT_LEAST_S, (end - now) / 4))


async def register_once(
    witness: Witness, api: str, clock: Callable[[], float] = time.time
) -> Registered:
    """Register (or renew) the witness's key with the log. Raises :class:`UsageError`
    when the log refuses the key (a 4xx other than 429: asking again at once changes
    nothing), :class:`LogUnavailable` when it does not answer."""
    async with LogClient(api) as log:
        try:
            answer = await log.register_witness(witness.key.vkey)
        except LogUnavailable as exc:
            if exc.status is not None and 400 <= exc.status < 500 and exc.status != 429:
                raise UsageError(f"the log refuses the registration: {exc}") from None
            raise
    answer = answer if isinstance(answer, dict) else {}
    source, until = answer.get("source"), answer.get("expires_at")
    line = f"registered {witness.key.name}+{witness.key.key_id:08x} ({source or 'answered'}"
    line += f", until {until})" if isinstance(until, str) else ")"
    return Registered(line, renew_in(until, clock()))


async def _run(witness: Witness, api: str, once: bool, interval: float, register: bool) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    registered = not register
    renew_at = math.inf  # on the monotonic clock
    while True:
        try:
            if not registered or time.monotonic() >= renew_at:
                try:
                    answer = await register_once(witness, api)
                except UsageError as exc:
                    if not registered:
                        raise
                    # A renewal refused: the line, and again later (the docstring says why).
                    sys.stderr.write(f"belot witness: {exc}\n")
                    renew_at = time.monotonic() + RENEW_RETRY_S
                else:
                    sys.stdout.write(f"belot witness: {answer.line}\n")
                    registered = True
                    renew_at = time.monotonic() + answer.renew_in
            line = await witness_once(witness, api)
            sys.stdout.write(f"belot witness: {line}\n")
            sys.stdout.flush()
        except SplitView as exc:
            sys.stderr.write(f"belot witness: {exc}\n")
            return EXIT_SPLIT_VIEW
        except LogUnavailable as exc:
            sys.stderr.write(f"belot witness: {exc}\n")
            if once:
                return EXIT_USAGE
        if once:
            return EXIT_OK
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), interval)
        if stop.is_set():
            return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    try:
        witness = _load_witness(args)
        witness.kept()
        if args.interval <= 0:
            raise UsageError("--interval must be more than 0 seconds")
        return asyncio.run(_run(witness, args.api, args.once, args.interval, args.register))
    except UsageError as exc:
        sys.stderr.write(f"belot witness: error: {exc}\n")
        return EXIT_USAGE


def cmd_keygen(args: argparse.Namespace) -> int:
    try:
        key = Cosigner(args.name, secrets.token_bytes(32))
    except TranslogError as exc:
        sys.stderr.write(f"belot witness keygen: error: {exc.message}\n")
        return EXIT_USAGE
    path = Path(args.key)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        sys.stderr.write(f"belot witness keygen: error: {path}: {exc.strerror or exc}\n")
        return EXIT_USAGE
    with os.fdopen(fd, "w") as f:
        f.write(key.skey + "\n")
    sys.stdout.write(key.vkey + "\n")
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    witness = sub.add_parser(
        "witness",
        help="witness the transparency log: check each checkpoint extends the last, cosign",
        description=(
            "A witness of the transparency log: it keeps the last checkpoint it cosigned, "
            "checks that each new one extends it (a consistency proof), cosigns it with its "
            "own key and clock and sends the cosignature to the log. It refuses a split "
            "view: exit 1, one line, never a cosignature."
        ),
    )
    wsub = witness.add_subparsers(dest="witness_command", required=True)
    keygen = wsub.add_parser("keygen", help="make a witness key (kept in --key, mode 0600)")
    keygen.add_argument("name", help="the witness's name, e.g. witness.example.org/w1")
    keygen.add_argument("--key", required=True, metavar="FILE", help="where to keep the key")
    keygen.set_defaults(handler=cmd_keygen)
    run = wsub.add_parser("run", help="check and cosign the log's checkpoints")
    run.add_argument("--api", required=True, metavar="URL", help="the log's public API")
    run.add_argument("--log-key", required=True, metavar="VKEY", help="the log's vkey")
    run.add_argument("--key", required=True, metavar="FILE", help="this witness's key file")
    run.add_argument(
        "--state", required=True, metavar="FILE", help="the last checkpoint cosigned (kept here)"
    )
    run.add_argument(
        "--register",
        action="store_true",
        help="first register this witness's key with the log, and renew it while running "
        "(no trust earned)",
    )
    run.add_argument("--once", action="store_true", help="one round, then exit")
    run.add_argument(
        "--interval",
        type=float,
        default=DEFAULT_INTERVAL_S,
        metavar="S",
        help=f"seconds between rounds ({DEFAULT_INTERVAL_S:g}: within the fair deal's round lead)",
    )
    run.set_defaults(handler=cmd_run)
