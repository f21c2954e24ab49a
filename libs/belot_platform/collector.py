"""Python's garbage collector tuned for a service's own process (``belot serve``).

A full collection walks every object the process tracks and, in a service, finds next
to nothing: what a request or a message makes is freed by reference counting as soon as
it is done with. Walking costs a pause, though, during which the service answers no
one: at 1,000 WebSockets the gateway tracked some 220,000 objects, 170,000 of them made
at start (modules, classes, the app), and one full collection stopped it for 150 ms, a
tail its sockets' delivery p99 showed whenever one fell in bench/sockets.py's window
(docs/bench/sockets.md). So, once a service has started (:func:`tune`):

- **What exists at start is frozen** (``gc.freeze()``): it lives as long as the process,
  and full collections no longer walk it. A collection first, so that no garbage is
  frozen with it.
- **The young generation is collected every** :data:`YOUNG_THRESHOLD` **allocations**
  instead of 700: a busy service (a table worker's deal makes tens of thousands of
  short-lived objects, the gateway's fan-out a few per message) otherwise ran a pass
  every few moves and promoted what was merely in flight, which then made the full
  collections come sooner.

Measured in the table worker under bench/capacity.py's load, where it was first done:
full collections had been some 7% of its CPU, a third of that after; its young
generation at 20,000, the worker's CPU per deal over the game core's went from 2.10x
to 1.99x in the next run.

Only ``belot serve`` tunes: a test process, or ``belot run`` hosting services in its
own, keeps the collector as Python sets it.
"""

from __future__ import annotations

import gc
from typing import Final

#: Allocations between young-generation collections in a service (Python's default is
#: 700).
YOUNG_THRESHOLD: Final = 20_000


def tune() -> None:
    """Freeze what exists now and space the young collections (module docstring); called
    again, it freezes what was made since (the table worker, once its solver is
    loaded)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
