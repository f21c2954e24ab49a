"""NATS helpers: connect, request/reply with JSON bodies and error codes, queue groups,
KV buckets. Only features NATS server 2.9 and 2.10+ share.

Replies are JSON objects. A handler's failure is answered as
``{"error": code, "message": text}``; :func:`request` raises it back as
:class:`ServiceError` on the caller's side, and turns a timeout into code ``timeout`` and
"nobody listens" into code ``unavailable``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, Final
from urllib.parse import unquote, urlsplit

import nats
import orjson
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js import JetStreamContext
from nats.js.errors import APIError, BucketNotFoundError
from nats.js.kv import KV_DEL, KV_PURGE, KeyValue

from belot_platform import fields, outage

# Re-exported: what request() raises, so callers import it beside request().
from belot_platform.errors import ServiceError as ServiceError

log = logging.getLogger(__name__)

TIMEOUT: Final = "timeout"
UNAVAILABLE: Final = "unavailable"
BAD_REQUEST: Final = "bad_request"
INTERNAL: Final = "internal"

#: Seconds a service that may not create a KV bucket waits for its owner to create it.
BUCKET_WAIT: Final = 30.0

#: A NATS user name that can stand as one subject token (its inbox is ``_INBOX.<user>``).
_USER_RE: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")

Handler = Callable[[Any], Awaitable[Any]]


def credentials(url: str) -> tuple[str, str] | None:
    """The user and password of the first server of ``url`` (comma-separated
    ``nats://user:password@host:port``) that names them, percent-decoded; None if none
    does. Raises ValueError for a user that cannot be a subject token."""
    for server in url.split(","):
        parts = urlsplit(server.strip())
        if parts.username is None or parts.password is None:
            continue
        user = unquote(parts.username)
        if _USER_RE.fullmatch(user) is None:
            raise ValueError(f"NATS user {user!r}: letters, digits, '_' and '-' only")
        return user, unquote(parts.password)
    return None


async def connect(url: str, *, name: str, connect_timeout: float = 5.0) -> Client:
    """Connect with reconnection on (forever, every half second), logging state changes.

    Credentials in ``url`` are sent to every server, the cluster's other nodes it
    learns of too; with a user, replies come on ``_INBOX.<user>.>``, the only inboxes
    the server's permissions (deploy/nats/auth.conf) let that user read. Raises
    ValueError for a user that cannot be a subject token.
    """

    async def on_error(exc: Exception) -> None:
        log.warning("nats error: %s", exc)

    async def on_disconnected() -> None:
        log.warning("nats disconnected")

    async def on_reconnected() -> None:
        log.info("nats reconnected")

    user, password = credentials(url) or (None, None)
    return await nats.connect(
        servers=[u.strip() for u in url.split(",")],
        name=name,
        connect_timeout=connect_timeout,
        allow_reconnect=True,
        max_reconnect_attempts=-1,
        reconnect_time_wait=0.5,
        error_cb=on_error,
        disconnected_cb=on_disconnected,
        reconnected_cb=on_reconnected,
        user=user,
        password=password,
        inbox_prefix="_INBOX" if user is None else f"_INBOX.{user}",
    )


async def request(nc: Client, subject: str, body: Any, *, timeout: float) -> Any:
    """Send ``body`` as JSON, return the decoded reply; raises :class:`ServiceError`
    (the responder's code, or ``timeout`` / ``unavailable`` / ``bad_request``)."""
    try:
        msg = await nc.request(subject, orjson.dumps(body), timeout=timeout)
    except NoRespondersError:
        raise ServiceError(UNAVAILABLE, f"nobody answers on {subject}") from None
    except NatsTimeoutError:
        raise ServiceError(TIMEOUT, f"no reply on {subject} within {timeout}s") from None
    try:
        reply = orjson.loads(msg.data)
    except orjson.JSONDecodeError:
        raise ServiceError(BAD_REQUEST, f"the reply on {subject} is not JSON") from None
    if isinstance(reply, dict) and isinstance(reply.get("error"), str):
        details = reply.get("details")
        raise ServiceError(
            reply["error"],
            str(reply.get("message", "")),
            details=details if isinstance(details, dict) else None,
        )
    return reply


async def serve(
    nc: Client,
    subject: str,
    handler: Handler,
    *,
    queue: str = "",
    concurrency: int = 256,
) -> Subscription:
    """Answer requests on ``subject`` with ``handler(decoded body)``'s JSON result.

    With ``queue``, the subscribers of one queue group share the requests (each goes to
    one of them). A :class:`ServiceError` is answered with its code; any other exception
    with code ``internal`` (and logged). Up to ``concurrency`` requests are handled at
    once: nats-py delivers a subscription's messages one after another, so a handler that
    waits (on the database, say) would otherwise hold up every request behind it.
    """
    slots = asyncio.Semaphore(concurrency)
    running: set[asyncio.Task[None]] = set()

    async def handle(msg: Msg) -> None:
        try:
            # Looked up at call time (fields.decode), so that a test may record reads.
            body = fields.decode(msg.data, f"the request on {subject}") if msg.data else None
        except fields.FieldError as exc:
            reply: Any = ServiceError.of(exc).to_json()
        else:
            reply = await answer(handler, body, subject)
        if msg.reply:
            await msg.respond(orjson.dumps(reply))

    async def run(msg: Msg) -> None:
        try:
            await handle(msg)
        finally:
            slots.release()

    async def on_msg(msg: Msg) -> None:
        await slots.acquire()  # back-pressure: wait here when `concurrency` are running
        task = asyncio.create_task(run(msg))
        running.add(task)
        task.add_done_callback(running.discard)

    return await nc.subscribe(subject, queue=queue, cb=on_msg)


async def answer(handler: Handler, body: Any, subject: str) -> Any:
    """``handler(body)``'s reply, or the error it raised as ``{"error", "message"}``:
    its own code for a :class:`ServiceError` or a :class:`~belot_platform.fields.FieldError`,
    ``unavailable`` for an outage of what it needs (logged without a traceback: not a
    bug), ``internal`` for anything else (logged with it)."""
    try:
        return await handler(body)
    except ServiceError as exc:
        return exc.to_json()
    except fields.FieldError as exc:
        return ServiceError.of(exc).to_json()
    except Exception as exc:
        if outage.is_outage(exc):
            log.warning("handler for %s: %s (%s)", subject, outage.what_failed(exc), exc)
            return ServiceError(UNAVAILABLE, outage.what_failed(exc)).to_json()
        log.exception("handler for %s failed", subject)
        return ServiceError(INTERNAL, type(exc).__name__).to_json()


async def subscribe_queue(
    nc: Client, subject: str, queue: str, handler: Callable[[Msg], Awaitable[None]]
) -> Subscription:
    """Share the messages of ``subject`` among the members of queue group ``queue``."""
    return await nc.subscribe(subject, queue=queue, cb=handler)


class BucketSettingsError(RuntimeError):
    """A KV bucket's settings differ from the configuration and updating it failed."""


async def kv_values(kv: KeyValue, name: str, timeout: float = 5.0) -> dict[str, bytes]:
    """Every live key of a bucket and its value, read once (the lobby's lines).

    Not ``watchall(ignore_deletes=True)`` read to its ``None``: nats-py puts that marker
    first when the consumer's info shows nothing pending and the client has handled no
    message yet, which is also the case when the server has just pushed every message
    and they are still on their way: on a loaded machine the lobby came back empty with
    tables in it. Here the end is the message the server sent with nothing pending
    after it (deletes included, so the last one is always seen), and a marker before
    any message means empty only when the bucket holds no message at all."""
    watcher = await kv.watchall()
    values: dict[str, bytes] = {}
    try:
        while True:
            try:
                entry = await watcher.updates(timeout=timeout)  # type: ignore[no-untyped-call]
            except NatsTimeoutError:
                raise ServiceError(outage.UNAVAILABLE, f"the {name} did not answer") from None
            if entry is None:
                if values or (await kv.status()).values == 0:
                    return values
                continue  # the marker ahead of messages still on their way
            if entry.operation in (KV_DEL, KV_PURGE) or not entry.value:
                values.pop(entry.key, None)
            else:
                values[entry.key] = entry.value
            if entry.delta == 0:
                return values
    finally:
        await watcher.stop()  # type: ignore[no-untyped-call]


async def kv_bucket(
    js: JetStreamContext,
    bucket: str,
    *,
    ttl: float | None = None,
    history: int = 1,
    wait: float = BUCKET_WAIT,
    reconcile: bool = False,
) -> KeyValue:
    """Bind to KV bucket ``bucket``, creating it if missing (``ttl`` in seconds: entries
    expire that long after their last write; leases use it).

    With ``reconcile`` (the bucket's owner: the table service), an existing bucket whose
    TTL or history differ from ``ttl`` and ``history`` is updated to them
    (:func:`reconcile_bucket`), never silently kept as it was first made.

    A user the server does not let create it (deploy/nats/auth.conf: only the table
    service creates its buckets) gets no answer to the creation; it binds again every
    second for up to ``wait`` seconds, meanwhile the owner creates it, then raises
    :class:`nats.errors.TimeoutError`.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while True:
        try:
            kv = await js.key_value(bucket)
        except BucketNotFoundError:
            pass
        else:
            if reconcile:
                await reconcile_bucket(js, bucket, ttl=ttl, history=history)
            return kv
        try:
            return await js.create_key_value(bucket=bucket, ttl=ttl, history=history)
        except NatsTimeoutError:
            if loop.time() >= deadline:
                raise
            log.warning("KV bucket %s is missing and creating it got no answer: waiting", bucket)
            await asyncio.sleep(1.0)


async def reconcile_bucket(
    js: JetStreamContext, bucket: str, *, ttl: float | None, history: int
) -> bool:
    """Make KV bucket ``bucket``'s TTL (its stream ``KV_<bucket>``'s ``max_age``; None:
    entries never expire) and history (``max_msgs_per_subject``) the given ones; True
    if it changed anything (and logs what). Raises :class:`BucketSettingsError`, one
    line naming the bucket, both values and what to do, if JetStream refuses or does not
    answer the update (a user without ``$JS.API.STREAM.UPDATE.KV_<bucket>``)."""
    stream = f"KV_{bucket}"
    config = (await js.stream_info(stream)).config
    have_ttl = float(config.max_age or 0)
    want_ttl = float(ttl or 0)
    have_history = config.max_msgs_per_subject or 0
    changes = []
    if abs(have_ttl - want_ttl) > 0.001:
        changes.append(f"TTL {_seconds(have_ttl)} -> {_seconds(want_ttl)}")
    if have_history != history:
        changes.append(f"history {have_history} -> {history}")
    if not changes:
        return False
    # JetStream wants the duplicate window no longer than the TTL (as nats-py creates it).
    window = min(float(config.duplicate_window or 120.0), 120.0)
    if want_ttl:
        window = min(window, want_ttl)
    updated = dataclasses.replace(
        config, max_age=want_ttl, max_msgs_per_subject=history, duplicate_window=window
    )
    try:
        await js.update_stream(updated)
    except (APIError, NatsTimeoutError) as exc:
        raise BucketSettingsError(
            f"KV bucket {bucket} differs from the configuration ({'; '.join(changes)}) and "
            f"updating it failed ({type(exc).__name__}: {exc}): let this user update stream "
            f"{stream}, or delete the bucket, or configure what it has"
        ) from None
    log.warning("KV bucket %s updated to the configuration: %s", bucket, "; ".join(changes))
    return True


def _seconds(value: float) -> str:
    return f"{value:g} s" if value else "none"
