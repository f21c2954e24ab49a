"""``belot log audit`` (a monitor) and ``belot log keygen``.

    belot log audit --api URL --log-key VKEY [--checkpoint FILE] [--json]
    belot log keygen ORIGIN --key FILE

The audit replays the whole transparency log through its public API, as anyone can: it
checks the log's checkpoint with the log's key, fetches every entry bundle
(``/tile/entries/...``) and recomputes the tree's root from them, which must be the
checkpoint's (so every entry below was read, none skipped or changed). Then it reports,
from the entries alone:

- every commitment used by more than one match (a server seed reused: its decks are
  known to whoever saw the first match's reveal);
- every match that named a round declared missed and then did not fall back, and every
  match that fell back on a round nobody declared missed (a fallback must be the
  round's public fact, shared by every match of that round, never one match's choice);
- per day (UTC, by the events' recorded time): matches ended, aborted and forfeited,
  rounds named and fallbacks, with the abort and fallback rates;

and, reading each match's record from the verify API, every entry without its events
(the record has no event at the entry's place, or one with another hash), every logged
event of a record without its entry (:func:`fairdeal.logentries.compare_with_record`),
and every finished match the API lists that the log does not hold at all.

Exit status: 0 nothing found, 1 findings (each on its own line), 2 bad input or the log
unreachable (one line on stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

from belot_platform.errors import EXIT_USAGE
from commands.translog_client import LogClient, LogUnavailable
from fairdeal import logentries
from translog import (
    TILE_WIDTH,
    Ed25519Signer,
    Ed25519Verifier,
    Tile,
    TranslogError,
    open_checkpoint,
    parse_bundle,
    parse_vkey,
    tree_hash,
)

EXIT_OK: Final = 0
EXIT_FINDINGS: Final = 1
# EXIT_USAGE (2: bad input, the log unreachable; one line on stderr) is the platform's.


@dataclass
class Day:
    ended: int = 0
    aborted: int = 0
    forfeited: int = 0
    named: int = 0
    fallbacks: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "ended": self.ended,
            "aborted": self.aborted,
            "forfeited": self.forfeited,
            "abort_rate": round(self.aborted / self.ended, 4) if self.ended else None,
            "rounds_named": self.named,
            "fallbacks": self.fallbacks,
            "fallback_rate": round(self.fallbacks / self.named, 4) if self.named else None,
        }


@dataclass
class Audit:
    """What the entries alone show (see the module docstring)."""

    size: int = 0
    findings: list[str] = field(default_factory=list)
    days: dict[str, Day] = field(default_factory=lambda: defaultdict(Day))
    by_match: dict[str, list[logentries.LogEntry]] = field(
        default_factory=lambda: defaultdict(list)
    )

    def to_json(self) -> dict[str, Any]:
        return {
            "size": self.size,
            "ok": not self.findings,
            "findings": self.findings,
            "days": {d: v.to_json() for d, v in sorted(self.days.items())},
        }


def audit_entries(entries: list[logentries.LogEntry]) -> Audit:
    """The findings and daily figures of a log's entries, in index order (pure)."""
    audit = Audit(size=len(entries))
    commitments: dict[bytes, list[str]] = defaultdict(list)
    missed: set[tuple[str, int]] = set()
    named: dict[str, tuple[str, int]] = {}
    fell_back: dict[str, int] = {}
    ended: set[str] = set()
    for entry in entries:
        day = audit.days[entry.event.recorded_at[:10]]
        match = logentries.entry_match(entry)
        if match is not None:
            audit.by_match[match].append(entry)
        if isinstance(entry, logentries.Commitment):
            commitments[entry.commitment].append(entry.match)
        elif isinstance(entry, logentries.RoundMissed):
            missed.add((entry.chain, entry.round))
        elif isinstance(entry, logentries.RoundNamed):
            named[entry.match] = (entry.chain, entry.round)
            day.named += 1
        elif isinstance(entry, logentries.Fallback):
            fell_back[entry.match] = entry.round
            day.fallbacks += 1
        elif isinstance(entry, logentries.Ending):
            ended.add(entry.match)
            day.ended += 1
            day.aborted += entry.ending == "MatchAborted"
            day.forfeited += entry.ending == "MatchForfeited"
    for commitment, matches in commitments.items():
        if len(matches) > 1:
            audit.findings.append(
                f"commitment {commitment.hex()} used {len(matches)} times: by " + ", ".join(matches)
            )
    for match, (chain, round_) in sorted(named.items()):
        fell = match in fell_back
        if (chain, round_) in missed and not fell and match in ended:
            audit.findings.append(
                f"match {match} named {chain} round {round_}, which was declared missed, "
                "and did not fall back"
            )
        if fell and (chain, round_) not in missed:
            audit.findings.append(
                f"match {match} fell back on {chain} round {round_}, which nobody declared missed"
            )
    for match, round_ in sorted(fell_back.items()):
        if match not in named:
            audit.findings.append(f"match {match} fell back on round {round_} it never named")
    return audit


async def replay(log: LogClient, log_key: Ed25519Verifier, checkpoint: str | None) -> list[bytes]:
    """Every entry of the log's checkpoint, its root recomputed from them. Raises
    :class:`LogUnavailable` or ``TranslogError`` (the entries do not make the root)."""
    text = checkpoint if checkpoint is not None else await log.checkpoint()
    signed = open_checkpoint(text, log_key).checkpoint
    entries: list[bytes] = []
    for n in range(-(-signed.size // TILE_WIDTH)):
        width = min(TILE_WIDTH, signed.size - n * TILE_WIDTH)
        tile = Tile(0, n, width)
        entries.extend(parse_bundle(await log.bundle(tile.entries_path()), width))
    if tree_hash(entries) != signed.root_hash:
        raise TranslogError(
            f"the log's {signed.size} entries do not make the root of its checkpoint: it "
            "serves another tree than it signed"
        )
    return entries


async def check_events(log: LogClient, audit: Audit) -> None:
    """Every match's entries against its record from the verify API."""
    for match, entries in sorted(audit.by_match.items()):
        try:
            record = await log.record(match)
        except LogUnavailable as exc:
            if exc.status == 404:
                audit.findings.append(
                    f"match {match}: the log holds {len(entries)} entries, the event log "
                    "serves no such match (entries without their events)"
                )
                continue
            raise LogUnavailable(f"the record of {match}: {exc}") from None
        # The round's fact is in the record's drand stream when the match named it.
        round_facts = [
            e for e in await _round_entries(log, record) if isinstance(e, logentries.RoundMissed)
        ]
        for problem in logentries.compare_with_record(record, [*entries, *round_facts]):
            audit.findings.append(f"match {match}: {problem}")
        hashes = logentries._record_hashes(record)
        for entry in entries:
            have = hashes.get((entry.event.stream, entry.event.version))
            if have is None:
                audit.findings.append(
                    f"match {match}: {entry.KIND} ({entry.event.stream} v{entry.event.version}) "
                    "has no event in the event log"
                )


async def check_finished(log: LogClient, audit: Audit) -> None:
    """Every finished match the verify API lists must be in the log (its logged events
    with their entries: checked by :func:`check_events` for those that are)."""
    before = None
    while True:
        page = await log.finished(before)
        for match in page["matches"]:
            if match not in audit.by_match:
                audit.findings.append(
                    f"match {match} ended in the event log and the log holds no entry of it "
                    "(events without their entries)"
                )
        before = page["next"]
        if before is None:
            return


async def _round_entries(log: LogClient, record: Any) -> list[logentries.LogEntry]:
    streams = record.get("streams") if isinstance(record, dict) else None
    drand = streams.get("drand") if isinstance(streams, dict) else None
    sid = drand.get("id") if isinstance(drand, dict) else None
    if not isinstance(sid, str) or not sid:
        return []
    rows = await log.entries(streams=[sid])
    return [logentries.parse_entry(r.data) for r in rows]


async def run_audit(api: str, log_key: Ed25519Verifier, checkpoint: str | None) -> Audit:
    async with LogClient(api) as log:
        raw = await replay(log, log_key, checkpoint)
        try:
            entries = [logentries.parse_entry(e) for e in raw]
        except logentries.LogEntryError as exc:
            raise TranslogError(f"the log holds an entry that is not one: {exc}") from None
        audit = audit_entries(entries)
        await check_events(log, audit)
        await check_finished(log, audit)
    return audit


def render(audit: Audit) -> str:
    lines = [f"log of {audit.size} entries, every one read and its root checked"]
    lines += [f"FINDING  {f}" for f in audit.findings]
    for day, figures in sorted(audit.days.items()):
        j = figures.to_json()
        lines.append(
            f"{day}  ended {j['ended']}, aborted {j['aborted']} (rate {j['abort_rate']}), "
            f"forfeited {j['forfeited']}; rounds named {j['rounds_named']}, fallbacks "
            f"{j['fallbacks']} (rate {j['fallback_rate']})"
        )
    lines.append("OK: nothing found" if not audit.findings else f"{len(audit.findings)} findings")
    return "\n".join(lines) + "\n"


def cmd_audit(args: argparse.Namespace) -> int:
    try:
        log_key = parse_vkey(args.log_key)
        if not isinstance(log_key, Ed25519Verifier):
            raise TranslogError("--log-key: the log's key is an Ed25519 note key (type 0x01)")
        checkpoint = (
            None if args.checkpoint is None else Path(args.checkpoint).read_text(encoding="utf-8")
        )
        audit = asyncio.run(run_audit(args.api.rstrip("/"), log_key, checkpoint))
    except (OSError, LogUnavailable) as exc:
        sys.stderr.write(f"belot log audit: error: {exc}\n")
        return EXIT_USAGE
    except TranslogError as exc:
        # The log itself does not hold together: that is the gravest finding.
        sys.stdout.write(f"FINDING  {exc.message}\n")
        return EXIT_FINDINGS
    if args.json:
        sys.stdout.write(orjson.dumps(audit.to_json()).decode() + "\n")
    else:
        sys.stdout.write(render(audit))
    return EXIT_FINDINGS if audit.findings else EXIT_OK


def cmd_keygen(args: argparse.Namespace) -> int:
    try:
        key = Ed25519Signer(args.origin, secrets.token_bytes(32))
        fd = os.open(args.key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except TranslogError as exc:
        sys.stderr.write(f"belot log keygen: error: {exc.message}\n")
        return EXIT_USAGE
    except OSError as exc:
        sys.stderr.write(f"belot log keygen: error: {args.key}: {exc.strerror or exc}\n")
        return EXIT_USAGE
    with os.fdopen(fd, "w") as f:
        f.write(key.skey + "\n")
    sys.stdout.write(key.vkey + "\n")
    return EXIT_OK


def register(logsub: Any) -> None:
    """``log audit`` and ``log keygen``, in the ``belot log`` group."""
    audit = logsub.add_parser(
        "audit",
        help="replay the transparency log and report what it shows",
        description=(
            "Replay the whole transparency log through its public API (its root "
            "recomputed), then report commitments used twice, matches that did not follow "
            "their round's fact, abort and fallback rates per day, and entries without "
            "their events. Exit 0 nothing found, 1 findings, 2 bad input or no answer."
        ),
    )
    audit.add_argument("--api", required=True, metavar="URL", help="the verify API")
    audit.add_argument("--log-key", required=True, metavar="VKEY", help="the log's vkey")
    audit.add_argument("--checkpoint", metavar="FILE", help="audit this checkpoint's tree")
    audit.add_argument("--json", action="store_true", help="print one JSON object")
    audit.set_defaults(handler=cmd_audit)
    keygen = logsub.add_parser(
        "keygen",
        help="make the transparency log's signing key (BELOT_TRANSLOG_KEY)",
        description="Write a new log key (skey) to FILE (mode 0600) and print its vkey.",
    )
    keygen.add_argument("origin", help="the log's origin, e.g. belot.example.org/log")
    keygen.add_argument("--key", required=True, metavar="FILE")
    keygen.set_defaults(handler=cmd_keygen)


__all__ = ["Audit", "audit_entries", "register", "run_audit"]
