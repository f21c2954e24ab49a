"""A quick restart keeps its ports: a port whose last connections are in TIME_WAIT (the
server closed them first, as a stopped server does) is free for the next server, since
PostgreSQL, nats-server and aiohttp bind with SO_REUSEADDR. The probes that choose the
ports (the embedded servers', the extra table workers') must agree, or every restart
within a minute or so would move to new ports and clients that knew the old ones would
look for ever."""

from __future__ import annotations

import socket

from belot_platform.embedded import port_is_free
from commands.run import free_port_from

HOST = "127.0.0.1"


def port_in_time_wait() -> int:
    """A port nothing listens on any more, its one connection in TIME_WAIT on the
    server's side (the server closed it first)."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((HOST, 0))
        listener.listen(1)
        port = int(listener.getsockname()[1])
        client = socket.create_connection((HOST, port))
        conn, _ = listener.accept()
        conn.close()  # the server's side closes first: it is the one left in TIME_WAIT
        client.recv(1)  # the server's FIN
        client.close()
    return port


def binds_without_reuse(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind((HOST, port))
        except OSError:
            return False
        return True


def test_a_port_in_time_wait_is_free() -> None:
    port = port_in_time_wait()
    assert not binds_without_reuse(port)  # what a probe without SO_REUSEADDR sees
    assert port_is_free(port)


def test_the_table_workers_ports_survive_a_quick_restart() -> None:
    port = port_in_time_wait()
    assert free_port_from(port) == port


def test_a_port_something_listens_on_is_taken() -> None:
    with socket.socket() as listener:
        listener.bind((HOST, 0))
        listener.listen(1)
        port = int(listener.getsockname()[1])
        assert not port_is_free(port)
        assert free_port_from(port) != port
