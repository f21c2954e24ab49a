"""The chaos run happens once per session (it takes a few minutes); each test of
test_worst_week.py judges one thing it recorded.

Its servers and services live in a directory of their own under the system's
temporary directory (world-searchable: PostgreSQL runs as its own user under root),
removed at the end unless ``BELOT_CHAOS_KEEP=1`` (then its path is printed: the
services' logs are in ``logs/``, the servers' in ``pg/server.log`` and
``nats/server.log``).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from tests.chaos.scenario import Week, worst_week
from tests.chaos.stack import Stack


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def week() -> AsyncIterator[Week]:
    base = Path(tempfile.mkdtemp(prefix="belot-chaos-"))
    base.chmod(0o755)
    stack = Stack(base)
    try:
        await stack.start()
        result = await worst_week(stack)
    finally:
        await stack.stop()
    sys.stderr.write("\nthe chaos run:\n" + "\n".join(result.timeline) + "\n")
    try:
        yield result
    finally:
        if os.environ.get("BELOT_CHAOS_KEEP") == "1":
            sys.stderr.write(f"\nthe chaos run's servers, data and logs: {base}\n")
        else:
            shutil.rmtree(base, ignore_errors=True)
