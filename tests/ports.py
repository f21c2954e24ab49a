"""A port for a server a test starts in another process (``belot run``'s services, a
``belot serve``), chosen so that nothing else takes it before that server binds it.

A port the OS hands out for ``bind(0)`` is one of its ephemeral ports, the range it
also gives every outgoing connection (``/proc/sys/net/ipv4/ip_local_port_range``): in
the moment between choosing it and the child binding it, a connection of another test
(the two test processes share the machine) may get it as its local port and hold it
for as long as it lives, and the child fails to bind, again at every restart. A port
below that range is never given out by the OS: it is taken only by a server that asks
for it, and a random one, checked free, is one no other test asks for.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

#: Where the ports are chosen when the OS does not say its range.
LOW, HIGH = 20_000, 32_000


def _ephemeral_low() -> int:
    try:
        return int(
            Path("/proc/sys/net/ipv4/ip_local_port_range").read_text(encoding="utf-8").split()[0]
        )
    except (OSError, ValueError, IndexError):
        return HIGH + 1


def free_port() -> int:
    """A free port below the OS's ephemeral range, picked at random."""
    top = min(HIGH, _ephemeral_low() - 1)
    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.randrange(LOW, top)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {LOW}..{top}")
