"""``belot verify RECORD.json | URL [--json] [--drand-url URL] [--api URL] [--receipt FILE]
[--no-log]``: check a record.

The same verifier as the API's (:func:`fairdeal.verifier.verify_record`), with drand's
BLS check. Exit status: 0 when every check passes, 1 when one fails (or is skipped), 2
for bad input (an unreadable file or URL, not JSON, not a match record) with one line on
stderr. ``--drand-url`` asks that drand relay for the record's round, independently of
the record, and adds a check ``drand_relay``: the relay's beacon must be the recorded one
(see :func:`relay_check` for a match dealt without drand). With a verify API (``--api``,
or the API the record's URL names) it also asks what only the whole log shows, and adds
:data:`~fairdeal.verifier.wholelog.PLATFORM_CHECKS`: that no other match used the record's
commitment, that every match that named its round followed the round's fact, and that the
record honours every seed receipt its seats published (and those given with
``--receipt``).

And, by default, the transparency log's checks (:func:`transparency_checks`): the
record's entries in a checkpoint the log signed, consistent with what its witnesses
cosigned, and the round named before it was due by a quorum of witnesses' clocks. A
record's times are the server's; without a witness's, a server that named the round
once it knew its value (and so chose every deck) passes every other check. So without
an API to ask, the report is not VERIFIED unless ``--no-log`` asks for the record alone.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import orjson

from belot_platform.errors import EXIT_USAGE, UsageError
from drand import verify as bls_verify
from drand.client import DrandClient
from fairdeal.chains import CHAINS
from fairdeal.receipts import receipt_from_json
from fairdeal.record import RecordError
from fairdeal.verifier import verify_record
from fairdeal.verifier.report import FAIL, PASS, SKIP, Check, Checked, Difference, Report
from fairdeal.verifier.wholelog import commitment_check, receipts_check, round_check

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
# EXIT_USAGE (2, bad input: a UsageError, one line on stderr) is the platform's.
#: A record of a long match is a few hundred kilobytes; refuse what cannot be one.
MAX_RECORD_BYTES: Final = 64 * 1024 * 1024
FETCH_TIMEOUT: Final = 30.0
DRAND_WAIT: Final = 15.0


def _is_url(source: str) -> bool:
    return urlsplit(source).scheme in ("http", "https")


async def _fetch(url: str) -> bytes:
    import aiohttp

    timeout = aiohttp.ClientTimeout(total=FETCH_TIMEOUT)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout) as http,
            http.get(url, headers={"Accept": "application/json"}) as resp,
        ):
            if resp.status != 200:
                text = (await resp.text(errors="replace"))[:200].strip()
                raise UsageError(f"{url}: HTTP {resp.status} {text}")
            chunks: list[bytes] = []
            size = 0
            async for chunk in resp.content.iter_chunked(1 << 16):
                size += len(chunk)
                if size > MAX_RECORD_BYTES:
                    break
                chunks.append(chunk)
            body = b"".join(chunks)
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise UsageError(f"{url}: {type(exc).__name__}: {exc}") from None
    if size > MAX_RECORD_BYTES:
        raise UsageError(f"{url}: more than {MAX_RECORD_BYTES} bytes: not a match record")
    return body


def _record_url(url: str) -> str:
    """``.../v1/matches/<id>`` names a match: its record is at ``.../record``."""
    path = urlsplit(url).path.rstrip("/")
    parts = path.split("/")
    if len(parts) >= 3 and parts[-2] == "matches" and parts[-3] == "v1":
        return url.rstrip("/") + "/record"
    return url


def api_of(source: str) -> str | None:
    """The verify API a record's URL names (``https://host/v1/matches/ID[/record]``)."""
    if not _is_url(source):
        return None
    parts = urlsplit(source)
    path = parts.path.rstrip("/").split("/")
    if "v1" in path and "matches" in path[path.index("v1") :]:
        base = "/".join(path[: path.index("v1")])
        return f"{parts.scheme}://{parts.netloc}{base}"
    return None


async def _get_json(url: str) -> Any:
    return orjson.loads(await _fetch(url))


def platform_checks(record: Any, api: str, receipts: Sequence[Any] = ()) -> list[Check]:
    """Ask the verify API at ``api`` what only the whole log shows about ``record``, and
    the receipts its seats published (with ``receipts``, those given by hand)."""
    fair = record.get("fair_deal") if isinstance(record, dict) else None
    match_id = record.get("match_id") if isinstance(record, dict) else None
    if not isinstance(fair, dict) or not isinstance(match_id, str):
        return []
    checks: list[Check] = []
    commitment = fair.get("commitment")
    if isinstance(commitment, str):
        try:
            users = asyncio.run(_get_json(f"{api}/v1/commitments/{commitment}"))["matches"]
            checks.append(commitment_check(match_id, commitment, [str(u) for u in users]))
        except (UsageError, KeyError, TypeError, orjson.JSONDecodeError) as exc:
            checks.append(Check("commitment_unique", SKIP, f"could not ask {api}: {exc}"))
    chain = (fair.get("chain") or {}).get("name") if isinstance(fair.get("chain"), dict) else None
    round_ = fair.get("drand_round")
    if isinstance(chain, str) and type(round_) is int:
        try:
            found = asyncio.run(_get_json(f"{api}/v1/rounds/{chain}/{round_}"))
            matches = [(str(m["match_id"]), m["dealt_with_drand"]) for m in found["matches"]]
            checks.append(round_check(match_id, chain, round_, found["fact"], matches))
        except (UsageError, KeyError, TypeError, orjson.JSONDecodeError) as exc:
            checks.append(Check("round_consistency", SKIP, f"could not ask {api}: {exc}"))
    try:
        published = asyncio.run(_get_json(f"{api}/v1/matches/{match_id}/receipts"))["receipts"]
        checks.append(receipts_check(record, [*published, *receipts]))
    except (UsageError, KeyError, TypeError, orjson.JSONDecodeError) as exc:
        checks.append(Check("seed_receipts", SKIP, f"could not ask {api}: {exc}"))
    return checks


def read_receipts(paths: Sequence[str]) -> list[Any]:
    """The receipts in the files ``paths`` (``--receipt``): each a receipt (JSON), or a
    list of them. Raises :class:`UsageError` for a file that is neither."""
    out: list[Any] = []
    for path in paths:
        doc = read_source(path)
        for one in doc if isinstance(doc, list) else [doc]:
            try:
                receipt_from_json(one)
            except ValueError as exc:
                raise UsageError(f"--receipt {path}: not a seed receipt: {exc}") from None
            out.append(one)
    return out


def read_source(source: str) -> Any:
    """The JSON document at ``source`` (a path, ``-`` for stdin, or an http(s) URL)."""
    if _is_url(source):
        body = asyncio.run(_fetch(_record_url(source)))
    elif source == "-":
        body = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
    else:
        try:
            with Path(source).open("rb") as f:
                body = f.read(MAX_RECORD_BYTES + 1)
        except OSError as exc:
            raise UsageError(f"{source}: {exc.strerror or exc}") from None
    if len(body) > MAX_RECORD_BYTES:
        raise UsageError(f"{source}: more than {MAX_RECORD_BYTES} bytes: not a match record")
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise UsageError(f"{source}: not JSON: {exc}") from None


async def _relay_beacon(url: str, chain_name: str, round_: int) -> Any:
    chain = CHAINS[chain_name]
    async with DrandClient([url], chain, retry_interval=1.0, request_timeout=10.0) as client:
        return await client.beacon_by(round_, time.time() + DRAND_WAIT)


def relay_check(report: Report, record: Any, url: str) -> Check:
    """Ask the relay at ``url`` for the record's round and compare with the record.

    A match dealt from drand passes when the relay serves the recorded beacon. A match
    dealt without drand never passes here: a relay that serves the round today cannot say
    whether the value was out by its due time + 5 s, so the claim that it was not is
    reported as one this check cannot confirm (a skip, and the report is not ok). A relay
    that cannot be reached is a skip too: nothing was checked."""
    name = "drand_relay"
    fair = record.get("fair_deal") if isinstance(record, dict) else None
    if not isinstance(fair, dict) or report.drand_round is None:
        return Check(name, FAIL, "the record names no drand round to ask for")
    chain = fair.get("chain") or {}
    chain_name = chain.get("name") if isinstance(chain, dict) else None
    if chain_name not in CHAINS:
        return Check(name, FAIL, f"the record's drand chain {chain_name!r} is not pinned")
    round_ = report.drand_round
    try:
        beacon = asyncio.run(_relay_beacon(url, str(chain_name), round_))
    except Exception as exc:  # any failure to reach the relay: nothing could be checked
        return Check(name, SKIP, f"could not check: could not ask {url} for round {round_}: {exc}")
    if beacon is None:
        return Check(
            name,
            SKIP,
            f"could not check: {url} gave no verified beacon for round {round_} within "
            f"{DRAND_WAIT} s",
        )
    used = fair.get("drand") if isinstance(fair.get("drand"), dict) else None
    late = fair.get("late_beacon") if isinstance(fair.get("late_beacon"), dict) else None
    recorded = used or late
    relay_sig = beacon.signature.hex()
    if recorded is not None and recorded.get("signature") != relay_sig:
        return Check(
            name,
            FAIL,
            f"{url} serves round {round_} with another signature than the record's",
            (Difference("fair_deal", "signature differs", recorded.get("signature"), relay_sig),),
        )
    if used is None:
        fact = fair["round_fact"] if isinstance(fair.get("round_fact"), dict) else {}
        return Check(
            name,
            SKIP,
            f"cannot confirm the fallback: {url} serves round {round_} (randomness "
            f"{beacon.randomness.hex()}, verified), and the record says the platform declared "
            f"it missed at {fact.get('at_ms')} ms, no value by its due time + 5 s. Whether the "
            "value was out in time cannot be known from here: a fallback is a claim to weigh "
            "against the platform's fallback rate (the verify API's /v1/stats)",
        )
    return Check(
        name,
        PASS,
        f"{url} independently serves round {round_} with the recorded signature and "
        f"randomness {beacon.randomness.hex()} (verified); the match was dealt from it",
    )


_MARK: Final = {PASS: "PASS", FAIL: "FAIL", SKIP: "SKIP"}


def render_checks(head: str, report: Checked, verified: str) -> str:
    """A report of named checks as text: ``head``, each check with what differs, then
    ``verified`` when every check passed, else which did not (``belot verify`` and
    ``belot verify-draw``)."""
    lines = [head]
    for c in report.checks:
        lines.append(f"  {_MARK.get(c.status, c.status.upper())}  {c.name:<16} {c.detail}")
        for d in c.differences:
            extra = ""
            if d.recorded is not None or d.expected is not None:
                extra = f" (recorded {d.recorded!r}, expected {d.expected!r})"
            lines.append(f"          - {d.where}: {d.what}{extra}")
    if report.ok:
        lines.append(verified)
    else:
        bad = [c.name for c in report.checks if not c.passed]
        lines.append(
            f"NOT VERIFIED: {len(bad)} of {len(report.checks)} checks did not pass: "
            + ", ".join(bad)
        )
    return "\n".join(lines) + "\n"


def render(report: Report, *, no_log: bool = False) -> str:
    how = (
        f"with drand round {report.drand_round}"
        if report.dealt_with_drand
        else f"without drand ({report.fallback_reason})"
    )
    alone = (
        " (the record alone, --no-log: that its round was named before its value was "
        "out rests on the server's clock)"
        if no_log
        else ""
    )
    return render_checks(
        f"match {report.match_id}",
        report,
        f"VERIFIED: every check passed; the match was dealt fairly {how}{alone}.",
    )


#: What ``belot verify`` says when it cannot ask the log (no API known, and no --no-log).
NO_LOG_API: Final = (
    "not checked: the record alone cannot show that its round was named before its value "
    "was out, nor that the log holds it (every time in a record is the server's): give "
    "--api URL (the verify API), or --no-log to check the record alone"
)


def transparency_checks(args: argparse.Namespace, doc: Any, api: str | None) -> list[Check]:
    """The transparency log's checks (commands/logcheck.py), run by default.

    The log's key is ``--log-key`` (the one the reader kept), else the key the API
    gives, which the ``log_key`` check names so that the reader can pin it. The
    witnesses are ``--witness`` (those the reader trusts), else the witnesses the log's
    operator configured, as the log lists them: ``log_timing`` then fails unless a
    quorum of them (``--quorum``, default a majority) cosigned the naming before the
    round was due, and fails outright when nobody watches the log. A check that needs
    the log and cannot have it is skipped, never left out: the report is then not
    VERIFIED (``--no-log`` asks for the record alone, and says so)."""
    from commands.logcheck import log_checks
    from translog import CosignatureVerifier, Ed25519Verifier, TranslogError, parse_vkey

    if api is None:
        return [Check("log_timing", SKIP, NO_LOG_API)]
    checks: list[Check] = []
    try:
        if args.log_key is not None:
            log_key = parse_vkey(args.log_key)
            checks.append(Check("log_key", PASS, f"the log's key you gave, {log_key.name}"))
        else:
            try:
                text = asyncio.run(_fetch_text(f"{api}/v1/log/key")).strip()
                log_key = parse_vkey(text)
            except UsageError as exc:
                return [Check("log_key", FAIL, f"could not ask the log for its key: {exc}")]
            except TranslogError as exc:
                return [Check("log_key", FAIL, f"{api} serves no log key: {exc.message}")]
            checks.append(
                Check(
                    "log_key",
                    PASS,
                    f"the log's key as {api} gives it: {text} (keep it, and give it as "
                    "--log-key next time: a log that later shows another key is another log)",
                )
            )
        if args.witness:
            witnesses = [parse_vkey(w) for w in args.witness]
        else:
            listed = asyncio.run(_get_json(f"{api}/v1/log/witnesses"))
            witnesses = [
                parse_vkey(str(w["vkey"]))
                for w in listed.get("witnesses", [])
                if isinstance(w, dict) and w.get("source") == "configured"
            ]
    except TranslogError as exc:
        raise UsageError(f"a key: {exc.message}") from None
    except (UsageError, KeyError, TypeError, AttributeError, orjson.JSONDecodeError) as exc:
        return [*checks, Check("log_timing", FAIL, f"{api} lists no witnesses: {exc}")]
    if not isinstance(log_key, Ed25519Verifier):
        raise UsageError("--log-key: the log's key is an Ed25519 note key (type 0x01)")
    if not all(isinstance(w, CosignatureVerifier) for w in witnesses):
        raise UsageError("--witness: a witness's key is a cosignature key (type 0x04)")
    if args.quorum is not None and not 1 <= args.quorum <= max(len(witnesses), 1):
        raise UsageError(f"--quorum {args.quorum}: 1 to the number of witnesses")

    def text(path: str | None, flag: str) -> str | None:
        if path is None:
            return None
        try:
            return Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"{flag} {path}: {exc}") from None

    return checks + asyncio.run(
        log_checks(
            doc,
            api,
            log_key,
            witnesses=[w for w in witnesses if isinstance(w, CosignatureVerifier)],
            quorum=args.quorum,
            checkpoint=text(args.checkpoint, "--checkpoint"),
            kept=text(args.kept, "--kept"),
        )
    )


async def _fetch_text(url: str) -> str:
    return (await _fetch(url)).decode("utf-8", "replace")


def cmd_verify(args: argparse.Namespace) -> int:
    try:
        for flag, url in (("--drand-url", args.drand_url), ("--api", args.api)):
            if url is not None and not _is_url(url):
                raise UsageError(f"{flag} {url!r}: give an http:// or https:// URL")
        if args.no_log and (args.log_key or args.witness or args.kept or args.checkpoint):
            raise UsageError("--no-log checks the record without the log: drop the log options")
        doc = read_source(args.record)
        receipts = read_receipts(args.receipt or ())
        try:
            report = verify_record(doc, bls=bls_verify)
        except RecordError as exc:
            raise UsageError(f"{args.record}: not a match record: {exc}") from None
    except UsageError as exc:
        sys.stderr.write(f"belot verify: error: {exc}\n")
        return EXIT_USAGE
    if args.drand_url:
        report = report.with_check(relay_check(report, doc, args.drand_url.rstrip("/")))
    api = args.api.rstrip("/") if args.api else api_of(args.record)
    if api is not None:
        for check in platform_checks(doc, api, receipts):
            report = report.with_check(check)
    elif receipts:
        report = report.with_check(receipts_check(doc, receipts))
    if not args.no_log:
        try:
            checks = transparency_checks(args, doc, api)
        except UsageError as exc:
            sys.stderr.write(f"belot verify: error: {exc}\n")
            return EXIT_USAGE
        for check in checks:
            report = report.with_check(check)
    return print_report(report, render(report, no_log=args.no_log), as_json=args.json)


def print_report(report: Checked, text: str, *, as_json: bool) -> int:
    """Print a report (its JSON, or ``text``) and return the exit status: 0 when every
    check passed, 1 otherwise."""
    if as_json:
        sys.stdout.write(orjson.dumps(report.to_json()).decode() + "\n")
    else:
        sys.stdout.write(text)
    return EXIT_OK if report.ok else EXIT_FAILED


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    verify = sub.add_parser(
        "verify",
        help="check a match record: fair deal, drand, decks, every card, the score",
        description=(
            "Verify a match record (format belot-match-record/1) from a file, '-' for "
            "stdin, or a URL (an API's /v1/matches/ID or /v1/matches/ID/record). Prints each "
            "check with pass or fail and what differs; exit 0 only when every check passes, "
            "1 when one does not, 2 for input that is not a record."
        ),
    )
    verify.add_argument("record", metavar="RECORD.json|URL")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.add_argument(
        "--drand-url",
        metavar="URL",
        help="a drand HTTP relay to fetch the record's round from, independently",
    )
    verify.add_argument(
        "--api",
        metavar="URL",
        help="a verify API to ask whether another match used the same commitment and "
        "whether every match of the record's drand round followed its fact (default: the "
        "API the record's URL names)",
    )
    verify.add_argument(
        "--receipt",
        action="append",
        metavar="FILE",
        help="a receipt for a seat's seed (JSON, or a list of them), as the randomness "
        "service gave it, signed with the match's receipt key: the record must honour it "
        "(seed_receipts; with --api, besides those the seats published there)",
    )
    verify.add_argument(
        "--log-key",
        metavar="VKEY",
        help="the transparency log's key you kept (default: the key the API gives, named "
        "in the report): the record's entries must be in a checkpoint it signed "
        "(docs/transparency-log.md)",
    )
    verify.add_argument(
        "--no-log",
        action="store_true",
        help="check the record alone, not against the transparency log: when its round was "
        "named then rests on the server's clock, and the report says so",
    )
    verify.add_argument(
        "--quorum",
        type=int,
        metavar="N",
        help="how many of the witnesses must have cosigned (default: a majority)",
    )
    verify.add_argument(
        "--checkpoint",
        metavar="FILE",
        help="the checkpoint to check against (default: the log's latest)",
    )
    verify.add_argument(
        "--kept",
        metavar="FILE",
        help="a checkpoint you kept earlier; the log must be consistent with it",
    )
    verify.add_argument(
        "--witness",
        action="append",
        metavar="VKEY",
        help="a witness you trust (repeat; default: the witnesses the log's operator "
        "configured): their cosignature times must put the commitment and the round's "
        "naming before the round was due",
    )
    verify.set_defaults(handler=cmd_verify)
