"""What ``belot verify`` checks of a record against the transparency log, with the log's
public API and the library alone (docs/transparency-log.md, "Checking a match").

Given the log's key (its vkey, which the user got from the operator once and keeps), a
checkpoint (fetched, or one the user saved) and, optionally, a checkpoint the user kept
from earlier and the witnesses the user trusts:

- ``log_entries``: every event of the record that gets an entry has it in the log, field
  for field (:func:`fairdeal.logentries.compare_with_record`), and the ending pins heads
  the record's streams had: a record of a match the log does not hold, or holds
  otherwise, fails;
- ``log_inclusion``: each of those entries is in the checkpoint (an RFC 9162 inclusion
  proof against the checkpoint's root, the checkpoint signed by the log's key);
- ``log_consistency``: the checkpoint extends the one the user kept, or the kept one
  extends it, and it extends the checkpoints the witnesses cosigned (consistency
  proofs): a log rewritten since (a fork of the tree) fails;
- ``log_timing``: a quorum of the witnesses the user trusts (a majority of them by
  default) each cosigned, by its own clock, not the server's, a checkpoint holding the
  commitment and one holding the round's naming before the round was due, and cosigned
  one holding the match's ending: a server that named the round once its value was
  known (a round grind the record alone cannot show, since every time in it is the
  server's) fails, and so does a log no trusted witness watches (nothing then says when
  anything was logged but the server).

Whose checkpoints: each trusted witness's own. The log is asked, for each of them,
for the first checkpoint holding each entry that *this* witness cosigned (``?witness=``
on ``/v1/log/entries``), and each is checked on its own: the log's signature, that
witness's cosignature (no other key's counts for it), the entry's inclusion, that
witness's time. A lookup of "the first checkpoint anyone cosigned" let a stranger who
registered a key and cosigned within 0.1 s of each signing hide the honest witness,
which cosigned the next checkpoint, and fail honest matches (issue 28, case 8);
cosignatures from keys the user does not trust now change nothing. A witness's first
checkpoint is the one that matters for time (a later one shows only a later time),
and the log cannot make a witness's time earlier than the witness signed: the worst a
lying log does is hide a checkpoint, which fails the check rather than passing it.

Why a quorum and the ending. One witness is one clock and one key: a quorum (more
than half of those trusted, unless the user says otherwise) keeps one compromised or
careless witness from vouching alone for a grind. The ending, cosigned at any time,
shows the quorum saw the whole match in the one tree they cosign, not a view kept for
this reader (a split view is what witnesses refuse to cosign).

Each is a :class:`~fairdeal.verifier.report.Check`. ``log_timing`` is always in the
report (without a trusted witness it fails, since nothing then shows when the round was
named); ``log_consistency`` is left out when there is nothing to compare the checkpoint
with (no kept checkpoint and no witnessed one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from commands.translog_client import LogClient, LogEntryRow, LogUnavailable
from fairdeal import logentries
from fairdeal.verifier.report import FAIL, PASS, Check
from translog import (
    Checkpoint,
    CosignatureVerifier,
    Ed25519Verifier,
    SignedCheckpoint,
    TranslogError,
    leaf_hash,
    open_checkpoint,
    verify_consistency,
    verify_inclusion,
)

LOG_CHECKS: Final = ("log_entries", "log_inclusion", "log_consistency", "log_timing")


async def _consistent(log: LogClient, a: Checkpoint, b: Checkpoint) -> str | None:
    """None if the smaller of two checkpoints is a prefix of the larger, else why not."""
    small, large = (a, b) if a.size <= b.size else (b, a)
    try:
        proof = (
            () if small.size in (0, large.size) else await log.consistency(small.size, large.size)
        )
        verify_consistency(small.size, large.size, proof, small.root_hash, large.root_hash)
    except TranslogError as exc:
        return (
            f"the tree of {large.size} entries does not extend the tree of {small.size}: "
            f"the log was rewritten ({exc.message})"
        )
    return None


async def _included(log: LogClient, row: LogEntryRow, checkpoint: Checkpoint) -> str | None:
    if row.index >= checkpoint.size:
        return (
            f"entry {row.index} is not in the checkpoint of {checkpoint.size} (fetch a newer one)"
        )
    try:
        proof = await log.inclusion(row.index, checkpoint.size)
        verify_inclusion(
            leaf_hash(row.data), row.index, checkpoint.size, proof, checkpoint.root_hash
        )
    except TranslogError as exc:
        return f"entry {row.index} is not in the checkpoint: {exc.message}"
    return None


def _open(
    text: str, log_key: Ed25519Verifier, witnesses: Sequence[CosignatureVerifier], quorum: int = 0
) -> SignedCheckpoint:
    return open_checkpoint(text, log_key, witnesses, quorum=quorum)


def _at(timestamp: int) -> str:
    """A witness's time (whole seconds, POSIX) as UTC, as a reader reads it."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _at_ms(ms: int) -> str:
    at = datetime.fromtimestamp(ms / 1000, UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S") + (f".{ms % 1000:03d}Z" if ms % 1000 else "Z")


@dataclass
class _Seen:
    """What one trusted witness's own first checkpoints show of the match's entries: for
    each kind that counts, its time on the first checkpoint holding it (verified: the
    log's signature, this witness's cosignature, the entry's inclusion), or why not."""

    witness: CosignatureVerifier
    #: The witness's time on its first checkpoint holding each kind (verified).
    times: dict[str, int] = field(default_factory=dict)
    #: Why a kind has no time: no such checkpoint, or one that does not verify.
    problems: dict[str, str] = field(default_factory=dict)
    #: The kinds first cosigned once the round was due.
    late: set[str] = field(default_factory=set)
    #: The checkpoints that verified, by (size, root): consistency is checked with each.
    checkpoints: dict[tuple[int, bytes], Checkpoint] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.witness.name

    def in_time(self, kinds: Sequence[str]) -> bool:
        """Each of ``kinds`` first cosigned, verified, before the round was due."""
        return all(k in self.times and k not in self.late and k not in self.problems for k in kinds)

    def why_not(self, kinds: Sequence[str]) -> list[str]:
        """Why each of ``kinds`` not cosigned in time is not."""
        late = [k for k in kinds if k in self.late and k not in self.problems]
        out = [self.problems[k] for k in kinds if k in self.problems]
        if late:
            times = " and ".join(f"the {k} at {_at(self.times[k])}" for k in late)
            out.insert(0, f"first cosigned {times}, after the round was due")
        return out


async def _seen_by(
    log: LogClient,
    log_key: Ed25519Verifier,
    witness: CosignatureVerifier,
    rows: Sequence[tuple[LogEntryRow, logentries.LogEntry]],
    due_ms: int | None,
    included: dict[tuple[int, int], str | None],
) -> _Seen:
    seen = _Seen(witness)
    for row, entry in rows:
        kind = entry.KIND
        by = row.by(witness.name, witness.key_id)
        if by is None:
            seen.problems[kind] = f"cosigned no checkpoint holding the {kind}"
            continue
        try:
            signed = _open(by.note, log_key, [witness], quorum=1)
        except TranslogError as exc:
            seen.problems[kind] = (
                f"its checkpoint of {by.size} holding the {kind} does not verify: {exc.message}"
            )
            continue
        cp = signed.checkpoint
        key = (row.index, cp.size)
        if key not in included:  # one proof per entry and size, whoever cosigned it
            included[key] = await _included(log, row, cp)
        if (why := included[key]) is not None:
            seen.problems[kind] = why
            continue
        seen.checkpoints[(cp.size, cp.root_hash)] = cp
        at = signed.cosignatures[0].timestamp
        seen.times[kind] = at
        if due_ms is not None and kind != logentries.Ending.KIND and at * 1000 >= due_ms:
            seen.late.add(kind)
    return seen


async def log_checks(
    record: Mapping[str, Any],
    api: str,
    log_key: Ed25519Verifier,
    *,
    witnesses: Sequence[CosignatureVerifier] = (),
    quorum: int | None = None,
    checkpoint: str | None = None,
    kept: str | None = None,
) -> list[Check]:
    """The log's checks of ``record`` (see the module docstring). ``witnesses``: the
    witness keys the user trusts; ``quorum``: how many of them must have cosigned in
    time (default: a majority, ``len(witnesses) // 2 + 1``; at least 1, else
    ``ValueError``; more than are given fails ``log_timing``)."""
    trusted = list({(w.name, w.key_id): w for w in witnesses}.values())
    need = len(trusted) // 2 + 1 if quorum is None else quorum
    if need < 1:
        raise ValueError(f"a quorum is at least one witness, not {need}")
    match_id = record.get("match_id")
    if not isinstance(match_id, str):
        return _unchecked(Check("log_entries", FAIL, "the record names no match"))
    async with LogClient(api) as log:
        try:
            text = checkpoint if checkpoint is not None else await log.checkpoint()
            rows = await log.entries(
                match=match_id, witnesses=[(w.name, w.key_id) for w in trusted]
            )
        except LogUnavailable as exc:
            return _unchecked(Check("log_entries", FAIL, f"could not ask the log: {exc}"))
        try:
            current = _open(text, log_key, ()).checkpoint
        except TranslogError as exc:
            return _unchecked(
                Check("log_inclusion", FAIL, f"the checkpoint does not verify: {exc.message}")
            )
        checks = []
        try:
            entries = [logentries.parse_entry(r.data) for r in rows]
        except logentries.LogEntryError as exc:
            return _unchecked(
                Check("log_entries", FAIL, f"the log serves an entry that is not one: {exc}")
            )

        # Entries.
        problems = logentries.compare_with_record(record, entries)
        if not rows:
            checks.append(
                Check(
                    "log_entries",
                    FAIL,
                    f"the log holds no entry of match {match_id}: the match is missing "
                    "from the log",
                )
            )
        elif problems:
            checks.append(Check("log_entries", FAIL, "; ".join(problems)))
        else:
            kinds = ", ".join(e.KIND for e in entries)
            checks.append(
                Check(
                    "log_entries",
                    PASS,
                    f"the log holds the record's {len(entries)} entries ({kinds}) as the "
                    "record has them",
                )
            )

        # Inclusion in the checkpoint.
        missing = [m for r in rows if (m := await _included(log, r, current)) is not None]
        if rows:
            checks.append(
                Check("log_inclusion", FAIL, "; ".join(missing))
                if missing
                else Check(
                    "log_inclusion",
                    PASS,
                    f"every entry is in the log's checkpoint of {current.size} entries "
                    f"(signed by {log_key.name})",
                )
            )

        # What each trusted witness's own first checkpoints show (log_timing), and the
        # checkpoints that verified, for consistency.
        named = next((e for e in entries if isinstance(e, logentries.RoundNamed)), None)
        timed = [
            (r, e)
            for r, e in zip(rows, entries, strict=True)
            if isinstance(e, logentries.Commitment | logentries.RoundNamed | logentries.Ending)
        ]
        included: dict[tuple[int, int], str | None] = {}
        seen = [
            await _seen_by(
                log, log_key, w, timed, None if named is None else named.due_at_ms, included
            )
            for w in trusted
        ]

        # Consistency: with the kept checkpoint, and with every witnessed one.
        others: list[tuple[str, Checkpoint]] = []
        if kept is not None:
            try:
                others.append(("the checkpoint you kept", _open(kept, log_key, ()).checkpoint))
            except TranslogError as exc:
                checks.append(
                    Check(
                        "log_consistency",
                        FAIL,
                        f"the kept checkpoint does not verify: {exc.message}",
                    )
                )
        cosigned: dict[tuple[int, bytes], tuple[Checkpoint, list[str]]] = {}
        for s in seen:
            for key, cp in s.checkpoints.items():
                cosigned.setdefault(key, (cp, []))[1].append(s.name)
        for key in sorted(cosigned):
            cp, names = cosigned[key]
            others.append((f"the checkpoint of {cp.size} cosigned by {', '.join(names)}", cp))
        if others:
            bad = []
            for what, other in others:
                why = await _consistent(log, current, other)
                if why is not None:
                    bad.append(f"{what}: {why}")
            checks.append(
                Check("log_consistency", FAIL, "; ".join(bad))
                if bad
                else Check(
                    "log_consistency",
                    PASS,
                    "the checkpoint is consistent with " + ", ".join(w for w, _ in others),
                )
            )

        checks.append(_timing(entries, named, seen, need))
    return checks


def _unchecked(first: Check) -> list[Check]:
    """A report cut short by ``first``: ``log_timing`` is in it still, failed (a report
    is read by the names of its checks, and this one always has it)."""
    return [first, Check("log_timing", FAIL, f"not checked: {first.detail}")]


NO_WITNESS: Final = (
    "no witness you trust watches this log: nothing but the server's own clock says the "
    "round was named before it was due (name a witness you trust)"
)


def _timing(
    entries: list[logentries.LogEntry],
    named: logentries.RoundNamed | None,
    seen: list[_Seen],
    need: int,
) -> Check:
    n = len(seen)
    if n == 0:
        return Check("log_timing", FAIL, NO_WITNESS)
    if named is None:
        return Check("log_timing", FAIL, "the log holds no round named for the match")
    due = f"round {named.round} was due at {_at_ms(named.due_at_ms)}"
    kinds = tuple(
        dict.fromkeys(
            e.KIND for e in entries if isinstance(e, logentries.Commitment | logentries.RoundNamed)
        )
    )
    in_time = [s for s in seen if s.in_time(kinds)]
    ended = [s for s in seen if s.in_time((logentries.Ending.KIND,))]
    has_ending = any(isinstance(e, logentries.Ending) for e in entries)

    def said(s: _Seen) -> str:
        if s in in_time:
            times = " and ".join(f"the {k} at {_at(s.times[k])}" for k in kinds)
            return f"{s.name} cosigned {times}"
        return f"{s.name} " + "; ".join(s.why_not(kinds))

    of = f"{len(in_time)} of the {n} witnesses you trust"
    ending = (
        f"the ending cosigned by {', '.join(s.name for s in ended)}"
        if ended
        else "no witness you trust cosigned the ending"
    )
    if len(in_time) >= need and len(ended) >= need:
        return Check(
            "log_timing",
            PASS,
            f"{of} (quorum {need}) cosigned the commitment and the naming before {due}: "
            + "; ".join(said(s) for s in in_time)
            + f"; {ending}",
        )
    short = []
    if need > n:
        short.append(f"a quorum of {need} witnesses, and you trust {n}")
    if len(in_time) < need:
        short.append(
            f"{of} cosigned the commitment and the naming before {due}, {need} needed"
            + (
                " (a round named once its value could be known looks so)"
                if any(s.late for s in seen)
                else ""
            )
        )
    if len(ended) < need:
        short.append(
            f"{len(ended)} of them cosigned a checkpoint holding the match's ending, "
            f"{need} needed" + ("" if has_ending else " (the log holds no ending of the match)")
        )
    return Check(
        "log_timing",
        FAIL,
        "; ".join(short) + ": " + "; ".join(said(s) for s in seen),
    )
