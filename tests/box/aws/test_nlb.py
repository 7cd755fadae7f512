"""The API's load balancer (nlb.py) against a Network Load Balancer's documented behaviour (its docstring), one
rule a test. Each test also runs against a balancer that sends every connection to one instance, whoever calls
and whatever its target group holds (ForwardsAnything), and must fail there. The targets listen on port 443,
as the API servers behind the real one do: root only, as the box is."""

from __future__ import annotations

import os
import socket
import threading
import time
from contextlib import contextmanager
from typing import Iterator

import pytest

from nlb import LoadBalancer, _pipe

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the targets listen on port 443: run as root")

# Loopback addresses standing for instances; nothing listens on SILENT.
ANY, IN_SERVICE, SILENT = "127.0.0.2", "127.0.0.3", "127.0.0.4"


class ForwardsAnything(LoadBalancer):
    """Sends each connection to the instance at ANY."""

    def _forward(self, client: socket.socket, source: str) -> None:
        upstream = socket.create_connection((ANY, 443), timeout=3)
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=_pipe, args=(a, b), daemon=True).start()


@pytest.fixture(autouse=True, scope="module")
def instances() -> Iterator[None]:
    """An API server at ANY and at IN_SERVICE, each answering with its own address."""
    servers = [socket.create_server((address, 443)) for address in (ANY, IN_SERVICE)]

    def answer(server: socket.socket) -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.sendall(server.getsockname()[0].encode())

    for server in servers:
        threading.Thread(target=answer, args=(server,), daemon=True).start()
    yield
    for server in servers:
        server.shutdown(socket.SHUT_RDWR)  # wakes its accept, which close alone would leave listening
        server.close()


@pytest.fixture(params=[LoadBalancer, ForwardsAnything], ids=["balancer", "forwards-anything"])
def balancer(request: pytest.FixtureRequest) -> Iterator[tuple[type[LoadBalancer], bool]]:
    yield request.param, request.param is LoadBalancer


@contextmanager
def running(kind: type[LoadBalancer], targets: list[str], sick: set[str] = frozenset()) -> Iterator[int]:
    """A balancer of KIND over TARGETS, serving on a port of 127.0.0.1 until the block ends; its health check
    fails at the targets in SICK, every 50 ms."""
    lb = kind("127.0.0.1", 0, lambda: targets, healthy=lambda t: t not in sick, interval=0.05)
    threading.Thread(target=lb.serve, daemon=True).start()
    try:
        yield lb._server.getsockname()[1]
    finally:
        lb.stop()


def ask(port: int, source: str | None = None) -> str:
    """What the caller at SOURCE hears through the balancer; empty when it closes the connection unanswered."""
    with socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0) if source else None) as c:
        try:
            return c.recv(64).decode()
        except ConnectionResetError:
            return ""


def test_with_no_target_in_service_a_connection_is_closed_unanswered(balancer):
    kind, real = balancer
    with running(kind, []) as port:
        assert (ask(port) == "") is real


def test_a_connection_reaches_a_target_in_service_and_no_other_instance(balancer):
    kind, real = balancer
    with running(kind, [IN_SERVICE]) as port:
        assert (ask(port) == IN_SERVICE) is real


def test_a_target_reaching_itself_through_the_balancer_is_not_answered(balancer):
    kind, real = balancer
    with running(kind, [ANY]) as port:
        assert (ask(port, source=ANY) == "") is real


def test_a_target_that_refuses_connections_is_skipped(balancer):
    kind, real = balancer
    with running(kind, [SILENT, IN_SERVICE]) as port:
        # Round robin starts at each target in turn: every connection still reaches the one that answers.
        assert all(ask(port) == IN_SERVICE for _ in range(4)) is real


def test_a_target_failing_its_health_check_twice_gets_no_connection_until_it_passes_twice(balancer):
    kind, real = balancer
    sick = {ANY}
    with running(kind, [ANY, IN_SERVICE], sick) as port:
        time.sleep(0.3)
        out = all(ask(port) == IN_SERVICE for _ in range(4))
        sick.clear()
        time.sleep(0.3)
        back = {ask(port) for _ in range(4)} == {ANY, IN_SERVICE}
        assert (out and back) is real


def test_with_every_target_unhealthy_connections_go_to_all_of_them(balancer):
    kind, real = balancer
    with running(kind, [IN_SERVICE], {IN_SERVICE}) as port:
        time.sleep(0.3)
        assert (ask(port) == IN_SERVICE) is real
