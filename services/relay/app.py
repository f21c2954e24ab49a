"""The outbox relay's composition root: ``create_app(settings)`` and ``main``
(``belot serve relay``).

The relay (:mod:`eventlog.relay`, where its reasoning is) publishes the event log to
JetStream, from which the gateway fans events out to WebSockets. It runs in a process of
its own, not inside the table workers, so that table workers scale without relaying and
the relay has only its own grants: the ``relay`` database role (read the log's head and
events, never a secret row) and the ``relay`` NATS user (publish ``belot.events.>``, keep
the ``BELOT_EVENTS`` stream), while the table's role and user lose them. Run two for a
quick takeover: an advisory lock keeps one active, the other waits on it.

The platform's app (PostgreSQL pool, NATS, ``/healthz``, ``/readyz``, ``/metrics``) plus
the relay, supervised as ``outbox-relay``: ``/readyz`` says not ready while it is down or
stalled, or while the lag (:meth:`~eventlog.relay.OutboxRelay.lag`, read from both ends)
stays above ``READY_LAG_EVENTS`` for ``READY_LAG_GRACE_S``; ``/metrics`` reads the lag
first. A standby's lag is the deployment's, so it says the same.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Final

from aiohttp import web

from belot_platform.app import METRICS_REFRESH, NATS, PG_POOL, TASKS, run_service
from belot_platform.app import create_app as create_platform_app
from belot_platform.settings import Settings
from belot_platform.supervise import Lag
from eventlog import EventStore
from eventlog.relay import READY_LAG_EVENTS, READY_LAG_GRACE_S, OutboxRelay

NAME: Final = "relay"
RELAY: Final = web.AppKey("outbox_relay", OutboxRelay)
#: The relay's supervised task (the ``task`` label of belot_task_up and restarts).
RELAY_TASK: Final = "outbox-relay"


def create_app(settings: Settings) -> web.Application:
    """The relay's app. ``settings`` must have its server URLs resolved."""
    app = create_platform_app(settings, name=NAME)

    async def service(app: web.Application) -> AsyncIterator[None]:
        # Read-only use of the log: no migration (the writers' services make it).
        store = EventStore(app[PG_POOL], settings.pg_schema, producer=NAME)
        outbox = OutboxRelay(
            store,
            app[NATS].jetstream(),
            stream=settings.events_stream,
            subject_prefix=settings.events_subject,
        )
        app[RELAY] = outbox
        task = app[TASKS].spawn(
            RELAY_TASK,
            lambda t: outbox.run(t.stopping, t.beat),
            grace=outbox.ack_timeout,
            stall_after=outbox.stall_after,
            lag=Lag(outbox.lag, READY_LAG_EVENTS, READY_LAG_GRACE_S, " events"),
        )
        app[METRICS_REFRESH].append(outbox.refresh_metrics)
        yield
        # SIGTERM: publish what is in hand, give the lock up (the standby takes over).
        await task.stop()
        await store.close()

    app.cleanup_ctx.append(service)
    return app


def main() -> None:
    """``belot serve relay``: relay on ``BELOT_RELAY_PORT`` until SIGTERM."""
    run_service(NAME, create_app)
