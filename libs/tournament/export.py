"""Standings as rows, and those rows as JSON, NDJSON or CSV text (the service writes it).

Every row has the same columns in the same order: place, entrant, players, status, the
record, then the format's tie-break columns in the order they are applied, then ``how``
(the computation in words).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tournament.standings import Standing

BASE_COLUMNS = (
    "place",
    "entrant",
    "players",
    "status",
    "points",
    "played",
    "wins",
    "draws",
    "losses",
    "byes",
)


def rows(table: Sequence[Standing]) -> list[dict[str, Any]]:
    out = []
    for s in table:
        row: dict[str, Any] = {
            "place": s.place,
            "entrant": s.entrant,
            "players": list(s.players),
            "status": s.status,
            "points": s.points,
            "played": s.played,
            "wins": s.wins,
            "draws": s.draws,
            "losses": s.losses,
            "byes": s.byes,
        }
        row.update(s.tie_breaks)
        row["how"] = s.how
        out.append(row)
    return out


def to_json(table: Sequence[Standing]) -> str:
    return json.dumps(rows(table), ensure_ascii=False, indent=2) + "\n"


def to_ndjson(table: Sequence[Standing]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows(table))


def to_csv(table: Sequence[Standing]) -> str:
    """RFC 4180 text: a header line, then one line per entrant; players joined by ' + '."""
    data = rows(table)
    if not data:
        return ",".join(BASE_COLUMNS) + ",how\r\n"
    header = list(data[0])
    lines = [",".join(_cell(h) for h in header)]
    for r in data:
        lines.append(",".join(_cell(r[h]) for h in header))
    return "\r\n".join(lines) + "\r\n"


def _cell(value: Any) -> str:
    if isinstance(value, list):
        value = " + ".join(value)
    text = str(value)
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text
