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
- ``log_timing`` (with witnesses): the first checkpoint a trusted witness cosigned that
  holds the commitment, and the one that holds the round's naming, were cosigned before
  the round was due, by the witness's clock, not the server's: a server that named the
  round once its value was known (a round grind the record alone cannot show, since
  every time in it is the server's) fails.

Each is a :class:`~fairdeal.verifier.report.Check`; a check that needs an option not given is
left out rather than skipped, so that a report without them is judged on the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from fairdeal import logentries
from fairdeal.verifier.report import FAIL, PASS, Check
from services.translog_client import LogClient, LogEntryRow, LogUnavailable
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


async def log_checks(
    record: Mapping[str, Any],
    api: str,
    log_key: Ed25519Verifier,
    *,
    witnesses: Sequence[CosignatureVerifier] = (),
    checkpoint: str | None = None,
    kept: str | None = None,
) -> list[Check]:
    """The log's checks of ``record`` (see the module docstring)."""
    match_id = record.get("match_id")
    if not isinstance(match_id, str):
        return [Check("log_entries", FAIL, "the record names no match")]
    async with LogClient(api) as log:
        try:
            text = checkpoint if checkpoint is not None else await log.checkpoint()
            rows = await log.entries(match=match_id)
        except LogUnavailable as exc:
            return [Check("log_entries", FAIL, f"could not ask the log: {exc}")]
        try:
            current = _open(text, log_key, ()).checkpoint
        except TranslogError as exc:
            return [Check("log_inclusion", FAIL, f"the checkpoint does not verify: {exc.message}")]
        checks = []
        try:
            entries = [logentries.parse_entry(r.data) for r in rows]
        except logentries.LogEntryError as exc:
            return [Check("log_entries", FAIL, f"the log serves an entry that is not one: {exc}")]

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

        # Consistency: with the kept checkpoint, and with the witnessed ones.
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
        witnessed: dict[int, SignedCheckpoint] = {}
        if witnesses:
            for r in rows:
                if r.witnessed_note is not None and r.witnessed_size not in witnessed:
                    try:
                        w = _open(r.witnessed_note, log_key, witnesses, quorum=1)
                    except TranslogError:
                        continue  # no trusted cosignature on it: log_timing says so
                    witnessed[w.checkpoint.size] = w
                    others.append(
                        (f"the witnessed checkpoint of {w.checkpoint.size}", w.checkpoint)
                    )
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

        # Witness times.
        if witnesses:
            checks.append(await _timing(log, rows, entries, witnessed))
    return checks


async def _timing(
    log: LogClient,
    rows: list[LogEntryRow],
    entries: list[logentries.LogEntry],
    witnessed: dict[int, SignedCheckpoint],
) -> Check:
    named = next((e for e in entries if isinstance(e, logentries.RoundNamed)), None)
    if named is None:
        return Check("log_timing", FAIL, "the log holds no round named for the match")
    due_ms = named.due_at_ms
    details, bad = [], []
    for row, entry in zip(rows, entries, strict=True):
        if not isinstance(entry, logentries.Commitment | logentries.RoundNamed):
            continue
        w = witnessed.get(row.witnessed_size) if row.witnessed_size is not None else None
        if w is None:
            bad.append(f"no trusted witness cosigned a checkpoint holding the {entry.KIND}")
            continue
        why = await _included(log, row, w.checkpoint)
        if why is not None:
            bad.append(why)
            continue
        first = min(w.cosignatures, key=lambda c: c.timestamp)
        if first.timestamp * 1000 >= due_ms:
            bad.append(
                f"the {entry.KIND} was first witnessed at {first.timestamp} ({first.name}), "
                f"not before round {named.round} was due at {due_ms / 1000:g}: it may have "
                "been made once the round's value was known"
            )
        else:
            details.append(f"the {entry.KIND} by {first.name} at {first.timestamp}")
    if bad:
        return Check("log_timing", FAIL, "; ".join(bad))
    return Check(
        "log_timing",
        PASS,
        f"witnessed before round {named.round} was due ({due_ms / 1000:g}): " + ", ".join(details),
    )
