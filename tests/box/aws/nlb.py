"""The API's network load balancer: a TCP listener that sends each connection to a target of its target
group, as an NLB does (Elastic Load Balancing user guide, "Network Load Balancers", "Target groups"):
- targets are the instances their Auto Scaling group has put InService (a group registers an instance with
  its target groups only then; moto registers every instance at once, so its registrations are not used);
- the client's address is preserved, so a target cannot reach itself through the load balancer ("Client IP
  preservation": hairpinned connections time out); such a connection is closed unanswered;
- a target that refuses the connection is skipped, as its failing health check would take it out;
- the target group's health check (apiLoadBalancer.ts: HTTPS GET /readyz every 10 s, 2 failures make a
  target unhealthy, 2 successes healthy again; success is a 200 to 399, the default for a Network Load
  Balancer): an unhealthy target gets no new connection, unless every target is unhealthy ("Health checks
  for Network Load Balancer target groups": fail open).
Not modelled: a new target's initial state (it gets connections before its first check)."""

from __future__ import annotations

import http.client
import itertools
import socket
import ssl
import threading
from typing import Callable

THRESHOLD = 2


def readyz(target: str) -> bool:
    """The target group's health check: HTTPS GET /readyz on the API port answers 200 to 399 (the certificate
    is not checked, as an NLB's health check does not check it)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    connection = http.client.HTTPSConnection(target, 443, timeout=5, context=context)
    try:
        connection.request("GET", "/readyz")
        return 200 <= connection.getresponse().status < 400
    except OSError:
        return False
    finally:
        connection.close()


class LoadBalancer:
    def __init__(
        self,
        address: str,
        port: int,
        targets: Callable[[], list[str]],
        healthy: Callable[[str], bool] = readyz,
        interval: float = 10,
    ):
        self._targets = targets
        self._turn = itertools.count()
        self._server = socket.create_server((address, port), reuse_port=False)
        self._server.settimeout(0.5)
        self._stopped = threading.Event()
        self._healthy = healthy
        self._interval = interval
        # Per target: consecutive failed checks (positive) or passed ones (negative) since its state last changed.
        self._streak: dict[str, int] = {}
        self._unhealthy: set[str] = set()
        threading.Thread(target=self._check, daemon=True).start()

    def _check(self) -> None:
        while not self._stopped.wait(self._interval):
            targets = self._targets()
            # A target that left the group is forgotten: an instance that gets its address starts afresh.
            for gone in set(self._streak) - set(targets):
                del self._streak[gone]
                self._unhealthy.discard(gone)
            for target in targets:
                passed = self._healthy(target)
                streak = self._streak.get(target, 0)
                streak = min(streak, 0) - 1 if passed else max(streak, 0) + 1
                self._streak[target] = streak
                if streak >= THRESHOLD:
                    self._unhealthy.add(target)
                elif -streak >= THRESHOLD:
                    self._unhealthy.discard(target)

    def serve(self) -> None:
        while not self._stopped.is_set():
            try:
                client, (source, _) = self._server.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            threading.Thread(target=self._forward, args=(client, source), daemon=True).start()

    def stop(self) -> None:
        self._stopped.set()
        self._server.close()

    def _forward(self, client: socket.socket, source: str) -> None:
        targets = self._targets()
        healthy = [t for t in targets if t not in self._unhealthy]
        targets = healthy or targets
        if not targets:
            client.close()
            return
        start = next(self._turn)
        for i in range(len(targets)):
            target = targets[(start + i) % len(targets)]
            if target == source:
                client.close()
                return
            try:
                upstream = socket.create_connection((target, 443), timeout=3)
            except OSError:
                continue
            upstream.settimeout(None)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pipe, args=(a, b), daemon=True).start()
            return
        client.close()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
