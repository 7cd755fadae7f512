"""The API's network load balancer: a TCP listener that sends each connection to a target of its target
group, as an NLB does (Elastic Load Balancing user guide, "Network Load Balancers", "Target groups"):
- targets are the instances their Auto Scaling group has put InService (a group registers an instance with
  its target groups only then; moto registers every instance at once, so its registrations are not used);
- the client's address is preserved, so a target cannot reach itself through the load balancer ("Client IP
  preservation": hairpinned connections time out); such a connection is closed unanswered;
- a target that refuses the connection is skipped, as its failing health check would take it out."""

from __future__ import annotations

import itertools
import socket
import threading
from typing import Callable


class LoadBalancer:
    def __init__(self, address: str, port: int, targets: Callable[[], list[str]]):
        self._targets = targets
        self._turn = itertools.count()
        self._server = socket.create_server((address, port), reuse_port=False)
        self._server.settimeout(0.5)
        self._stopped = threading.Event()

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
