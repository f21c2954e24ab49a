"""``belot witness``'s check (commands/witness_cmd.py): a checkpoint is cosigned only if
it extends the one the witness kept."""

from __future__ import annotations

import argparse

import pytest

from belot_platform.settings import Settings
from commands.witness_cmd import DEFAULT_INTERVAL_S, SplitView, check_extends, register
from fairdeal.fairness import ROUND_LEAD_MS
from translog import Checkpoint, consistency_path, leaf_hash, tree_hash

ENTRIES = [b"entry %d" % i for i in range(9)]
LEAVES = [leaf_hash(e) for e in ENTRIES]


def cp(size: int, entries: list[bytes] = ENTRIES) -> Checkpoint:
    return Checkpoint("log.test/l", size, tree_hash(entries[:size]))


def test_a_first_checkpoint_and_a_larger_consistent_one_are_fine() -> None:
    check_extends(None, cp(5), None)
    check_extends(cp(3), cp(9), consistency_path(LEAVES, 3, 9))
    check_extends(cp(9), cp(9), None)


@pytest.mark.parametrize(
    ("kept", "new", "proof", "what"),
    [
        (cp(5), cp(4), None, "fewer than"),
        (cp(5), Checkpoint("log.test/l", 5, bytes(32)), None, "two different trees"),
        (cp(3), cp(9), (), "does not extend"),
        (cp(3), cp(9), consistency_path(LEAVES, 4, 9), "does not extend"),
        (
            cp(3),
            cp(9, [b"forged", *ENTRIES[1:]]),
            consistency_path(LEAVES, 3, 9),
            "does not extend",
        ),
    ],
    ids=["rollback", "same size", "no proof", "wrong proof", "rewritten history"],
)
def test_a_split_view_is_refused(kept, new, proof, what: str) -> None:
    with pytest.raises(SplitView, match=what):
        check_extends(kept, new, proof)


def test_a_witness_at_its_default_interval_sees_a_naming_well_within_the_round_lead() -> None:
    # The log signs within its interval of an entry, the witness fetches within its own:
    # both together at most half the lead, the other half margin (fairness.ROUND_LEAD_MS).
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["witness", "run", "--api", "a", "--log-key", "k", "--key", "f",
                              "--state", "s"])  # fmt: skip
    assert args.interval == DEFAULT_INTERVAL_S == 1.0
    assert (DEFAULT_INTERVAL_S + Settings().translog_interval) * 1000 <= ROUND_LEAD_MS / 2
