"""A TCP proxy in front of a server, for the outage tests: a service connects through it,
and the test takes the server away from that service alone (the proxy stops listening
and cuts every connection: to the service it is a server gone down) and brings it back,
without touching the servers the other tests share."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit


class Proxy:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        assert parts.hostname is not None and parts.port is not None, url
        self.url = url
        self.target = (parts.hostname, parts.port)
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def proxied_url(self) -> str:
        """``url`` with the proxy's address in place of the server's (credentials kept)."""
        return self.via(self.url)

    def via(self, url: str) -> str:
        """Any URL of the same server, through the proxy (another user's, say)."""
        parts = urlsplit(url)
        credentials, _, _ = parts.netloc.rpartition("@")
        netloc = f"{credentials}@" if credentials else ""
        return urlunsplit(parts._replace(netloc=f"{netloc}127.0.0.1:{self.port}"))

    async def start(self) -> None:
        """Listen (again, on the same port once it had one)."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """The server is gone: nothing listens, every connection is cut."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.add(writer)
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers.add(up_writer)
        try:
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            for w in (writer, up_writer):
                w.transport.abort()
                self._writers.discard(w)
            self._tasks.discard(task)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError, asyncio.IncompleteReadError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    writer.transport.abort()


@contextlib.asynccontextmanager
async def proxy(url: str) -> AsyncIterator[Proxy]:
    p = Proxy(url)
    await p.start()
    try:
        yield p
    finally:
        await p.stop()
