"""The lifecycle layer against Auto Scaling's documented contract (lifecycle.py's docstring), one rule a test.
Each test also runs against a layer that accepts anything (AcceptsAnything), and must fail there: a rule
that a permissive stand-in also passes would not be tested at all."""

from __future__ import annotations

import pytest

from lifecycle import LAUNCHING, TERMINATING, Hook, Lifecycle, LifecycleError, Notice


class FakeGroups:
    def __init__(self) -> None:
        self.members = {"i-1": "nodes"}
        self.minimum = 0
        self.terminated: list[tuple[str, bool]] = []
        self.notices: list[Notice] = []
        self.group_hooks = [
            Hook("joined", LAUNCHING, 900, "ABANDON"),
            Hook("drain", TERMINATING, 300, "CONTINUE"),
        ]

    def instances(self) -> dict[str, str]:
        return dict(self.members)

    def hooks(self, group: str) -> list[Hook]:
        return self.group_hooks

    def terminate(self, instance_id: str, decrement: bool) -> None:
        self.members.pop(instance_id, None)
        self.terminated.append((instance_id, decrement))

    def launch_replacement(self, group: str) -> None:
        self.members[f"i-{len(self.members) + len(self.terminated) + 1}"] = group

    def sizes(self, group: str) -> tuple[int, int]:
        return self.minimum, len(self.members)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class AcceptsAnything(Lifecycle):
    """A stand-in that takes every call and puts every instance InService: what the layer must not be."""

    def sync(self) -> None:
        return None

    def state(self, instance_id: str) -> str | None:
        return "InService"

    def complete(self, *args: object, **kwargs: object) -> None:
        return None

    def heartbeat(self, *args: object, **kwargs: object) -> None:
        return None

    def terminate(self, instance_id: str, decrement: bool) -> None:
        self._groups.terminate(instance_id, decrement)

    def unhealthy(self, instance_id: str) -> None:
        self._groups.terminate(instance_id, False)


@pytest.fixture(params=[Lifecycle, AcceptsAnything], ids=["layer", "accepts-anything"])
def subject(request: pytest.FixtureRequest) -> tuple[Lifecycle, FakeGroups, Clock, bool]:
    groups, clock = FakeGroups(), Clock()
    return request.param(groups, clock, groups.notices.append), groups, clock, request.param is Lifecycle


def holds(real: bool, check: bool) -> None:
    """The rule holds for the real layer, and fails for the permissive one."""
    assert check is real


def test_a_launched_instance_waits_in_its_launch_hook(subject):
    lifecycle, _, _, real = subject
    holds(real, lifecycle.state("i-1") == "Pending:Wait")


def test_an_action_completes_once(subject):
    lifecycle, _, _, real = subject
    lifecycle.complete("nodes", "joined", "CONTINUE", instance_id="i-1")
    try:
        lifecycle.complete("nodes", "joined", "CONTINUE", instance_id="i-1")
        refused = False
    except LifecycleError as error:
        refused = "No active Lifecycle Action found with instance ID i-1" in str(error)
    holds(real, refused and lifecycle.state("i-1") == "InService")


def test_an_action_completes_only_for_its_group_and_hook(subject):
    lifecycle, _, _, real = subject
    refusals = 0
    for group, hook in (("other", "joined"), ("nodes", "drain")):
        try:
            lifecycle.complete(group, hook, "CONTINUE", instance_id="i-1")
        except LifecycleError:
            refusals += 1
    holds(real, refusals == 2 and lifecycle.state("i-1") == "Pending:Wait")


def test_an_action_completes_by_its_token(subject):
    lifecycle, _, _, real = subject
    lifecycle.sync()
    tokens = [a.token for t in getattr(lifecycle, "_tracked").values() for a in t.actions]
    try:
        lifecycle.complete("nodes", "joined", "CONTINUE", token="not-a-token")
        wrong_refused = False
    except LifecycleError:
        wrong_refused = True
    if tokens:
        lifecycle.complete("nodes", "joined", "CONTINUE", token=tokens[0])
    holds(real, wrong_refused and lifecycle.state("i-1") == "InService")


def test_a_launch_hook_that_times_out_abandons_the_instance(subject):
    lifecycle, groups, clock, real = subject
    lifecycle.sync()
    clock.now += 899
    lifecycle.sync()
    waiting = groups.terminated == []
    clock.now += 2
    lifecycle.sync()
    holds(real, waiting and groups.terminated == [("i-1", False)])


def test_a_heartbeat_restarts_the_timeout(subject):
    lifecycle, groups, clock, real = subject
    lifecycle.sync()
    clock.now += 800
    lifecycle.heartbeat("nodes", "joined", instance_id="i-1")
    clock.now += 800
    lifecycle.sync()
    kept = groups.terminated == [] and lifecycle.state("i-1") == "Pending:Wait"
    clock.now += 101
    lifecycle.sync()
    holds(real, kept and groups.terminated == [("i-1", False)])


def test_abandon_on_launch_terminates_and_replaces(subject):
    lifecycle, groups, _, real = subject
    lifecycle.complete("nodes", "joined", "ABANDON", instance_id="i-1")
    holds(real, groups.terminated == [("i-1", False)])


def test_a_terminating_instance_waits_in_its_termination_hook(subject):
    lifecycle, groups, _, real = subject
    lifecycle.complete("nodes", "joined", "CONTINUE", instance_id="i-1")
    lifecycle.terminate("i-1", decrement=True)
    waiting = lifecycle.state("i-1") == "Terminating:Wait" and groups.terminated == []
    lifecycle.complete("nodes", "drain", "CONTINUE", instance_id="i-1")
    holds(real, waiting and groups.terminated == [("i-1", True)])


def test_only_instances_in_service_are_in_service(subject):
    lifecycle, _, _, real = subject
    before = lifecycle.in_service()
    lifecycle.complete("nodes", "joined", "CONTINUE", instance_id="i-1")
    holds(real, before == {} and lifecycle.in_service() == {"i-1": "nodes"})


def test_abandon_ends_every_launch_hook_at_once(subject):
    lifecycle, groups, _, real = subject
    groups.group_hooks.append(Hook("warm-up", LAUNCHING, 600, "CONTINUE"))
    lifecycle.complete("nodes", "joined", "ABANDON", instance_id="i-1")
    holds(real, groups.terminated == [("i-1", False)])


def test_every_launch_hook_completes_before_service(subject):
    lifecycle, _, _, real = subject
    getattr(lifecycle, "_groups").group_hooks.append(Hook("warm-up", LAUNCHING, 600, "CONTINUE"))
    lifecycle.complete("nodes", "joined", "CONTINUE", instance_id="i-1")
    waiting = lifecycle.state("i-1") == "Pending:Wait"
    lifecycle.complete("nodes", "warm-up", "CONTINUE", instance_id="i-1")
    holds(real, waiting and lifecycle.state("i-1") == "InService")


def test_each_action_is_announced_once_with_the_token_that_completes_it(subject):
    lifecycle, groups, _, real = subject
    lifecycle.sync()
    lifecycle.sync()
    for notice in [n for n in groups.notices if n.transition == LAUNCHING]:
        lifecycle.complete(notice.group, notice.hook, "CONTINUE", token=notice.token)
    lifecycle.terminate("i-1", decrement=False)
    for notice in [n for n in groups.notices if n.transition == TERMINATING]:
        lifecycle.complete(notice.group, notice.hook, "CONTINUE", token=notice.token)
    announced = [(n.instance_id, n.group, n.hook, n.transition) for n in groups.notices]
    expected = [("i-1", "nodes", "joined", LAUNCHING), ("i-1", "nodes", "drain", TERMINATING)]
    holds(real, announced == expected and groups.terminated == [("i-1", False)])


def test_an_unhealthy_instance_in_service_terminates_once_its_replacement_is_in_service(subject):
    lifecycle, groups, _, real = subject
    lifecycle.unhealthy("i-1")
    launching = lifecycle.state("i-1") == "Pending:Wait" and groups.terminated == [] and list(groups.members) == ["i-1"]
    lifecycle.complete("nodes", "joined", "CONTINUE", instance_id="i-1")
    lifecycle.unhealthy("i-1")
    # Its replacement launched; it stays in service until the replacement is.
    kept = lifecycle.state("i-1") == "InService" and lifecycle.state("i-2") == "Pending:Wait"
    lifecycle.complete("nodes", "joined", "CONTINUE", instance_id="i-2")
    waiting = lifecycle.state("i-1") == "Terminating:Wait" and groups.terminated == []
    lifecycle.complete("nodes", "drain", "CONTINUE", instance_id="i-1")
    holds(real, launching and kept and waiting and groups.terminated == [("i-1", True)])


def test_a_decrement_below_the_minimum_size_is_refused(subject):
    lifecycle, groups, _, real = subject
    lifecycle.complete("nodes", "joined", "CONTINUE", instance_id="i-1")
    groups.minimum = 1
    try:
        lifecycle.terminate("i-1", decrement=True)
        refused = False
    except LifecycleError as error:
        refused = "desiredSize equals minSize (1)" in str(error)
    # Without the decrement the group replaces it: allowed.
    lifecycle.terminate("i-1", decrement=False)
    holds(real, refused and lifecycle.state("i-1") == "Terminating:Wait")
