"""An alias: a seat's view as JSON is :mod:`table.views` (the gateway sends it as well as
the table, so it sits below both). Kept only for the chaos suite's client bots
(tests/chaos/players.py), which import it from here; nothing else does."""

from table.views import view_from_json as view_from_json
