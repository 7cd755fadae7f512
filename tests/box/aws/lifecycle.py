"""Auto Scaling's lifecycle hooks, which moto does not implement (CompleteLifecycleAction and
RecordLifecycleActionHeartbeat answer HTTP 500; instances never wait), kept in front of moto.

The contract, from the Amazon EC2 Auto Scaling API reference and user guide ("Amazon EC2 Auto Scaling
lifecycle hooks", "Complete a lifecycle action", CompleteLifecycleAction, RecordLifecycleActionHeartbeat):
- an instance launched into a group with an EC2_INSTANCE_LAUNCHING hook waits in Pending:Wait; one that the
  group terminates, with an EC2_INSTANCE_TERMINATING hook, in Terminating:Wait; every hook of the transition
  holds it until each is completed or times out;
- an action is completed once, by its token or by the instance's id, for that group and hook; any other call
  is a ValidationError "No active Lifecycle Action found with instance ID ...";
- a heartbeat restarts the hook's timeout; once it passes, the hook's DefaultResult applies;
- each action that starts is announced to EventBridge, one event per hook with its token (Notice; the
  emulator sends it, autoscaling_events.py);
- ABANDON on launch terminates the instance at once, the other hooks' actions ended (the group launches
  another); on termination both results go on to terminate it; CONTINUE from every launch hook puts it
  InService, and only then in its group's target groups;
- an InService instance set Unhealthy (SetInstanceHealth; "Health checks for instances in an Auto Scaling
  group": the group replaces an unhealthy instance) is replaced as the program's instance maintenance policy
  says (minimum healthy 100 %, "Instance maintenance policies": Auto Scaling "first launches a new instance
  and then waits for it to be fully ready before terminating the unhealthy instance"): its replacement
  launches, and once one it launched since is InService, it terminates through its termination hooks.
- TerminateInstanceInAutoScalingGroup with ShouldDecrementDesiredCapacity is refused while the desired
  capacity equals the minimum size (ValidationError "Currently, desiredSize equals minSize (N). Terminating
  instance without replacement will violate group's min size constraint. ...", as AWS answers it:
  aws/aws-cli#47, hashicorp/nomad-autoscaler#1290).
Not modelled: the hooks' global timeout (48 hours, or 100 heartbeat timeouts), and scale-in by a smaller
desired capacity (the box terminates instances one by one, through TerminateInstanceInAutoScalingGroup).
"""

from __future__ import annotations

import threading
import time
import traceback
import uuid
from dataclasses import dataclass, field
from typing import Callable, Protocol

LAUNCHING = "autoscaling:EC2_INSTANCE_LAUNCHING"
TERMINATING = "autoscaling:EC2_INSTANCE_TERMINATING"


class LifecycleError(Exception):
    """An Auto Scaling ValidationError."""


@dataclass
class Hook:
    name: str
    transition: str
    heartbeat_timeout: int
    default_result: str


@dataclass
class Action:
    hook: Hook
    token: str
    deadline: float
    result: str | None = None


@dataclass
class Tracked:
    group: str
    state: str
    actions: list[Action] = field(default_factory=list)


@dataclass(frozen=True)
class Notice:
    """A lifecycle action that started: what Auto Scaling tells EventBridge about it."""

    instance_id: str
    group: str
    hook: str
    transition: str
    token: str


class Groups(Protocol):
    """What the layer needs of Auto Scaling's groups (moto's, in the emulator)."""

    def instances(self) -> dict[str, str]:
        """Instance id → its group, for every instance the groups hold."""
        ...

    def hooks(self, group: str) -> list[Hook]: ...

    def terminate(self, instance_id: str, decrement: bool) -> None:
        """Terminates the instance; the group launches a replacement unless DECREMENT."""
        ...

    def sizes(self, group: str) -> tuple[int, int]:
        """The group's minimum size and desired capacity."""
        ...

    def launch_replacement(self, group: str) -> None:
        """Launches one more instance into the group (its desired capacity one up)."""
        ...


class Lifecycle:
    """Lifecycle states and actions of every instance of the groups, by the contract above."""

    def __init__(
        self,
        groups: Groups,
        clock: Callable[[], float] = time.monotonic,
        notify: Callable[[Notice], None] = lambda _notice: None,
    ):
        self._groups = groups
        self._clock = clock
        self._notify = notify
        self._lock = threading.RLock()
        self._tracked: dict[str, Tracked] = {}
        self._decrement: dict[str, bool] = {}
        # Unhealthy instances waiting for a replacement: id → the group's instances when it was marked.
        self._replacing: dict[str, set[str]] = {}

    def _start(self, instance_id: str, tracked: Tracked, transition: str, waiting: str, after: str) -> None:
        hooks = [h for h in self._groups.hooks(tracked.group) if h.transition == transition]
        now = self._clock()
        tracked.actions = [Action(h, str(uuid.uuid4()), now + h.heartbeat_timeout) for h in hooks]
        tracked.state = waiting if hooks else after
        for action in tracked.actions:
            # Best effort, as AWS sends events: a lost one never fails the call that started the action.
            try:
                self._notify(Notice(instance_id, tracked.group, action.hook.name, transition, action.token))
            except Exception:
                traceback.print_exc()
        if not hooks:
            self._finish(instance_id, tracked)

    def sync(self) -> None:
        """New instances of the groups enter their launch hooks; hooks past their timeout take their default."""
        with self._lock:
            current = self._groups.instances()
            for instance_id, group in current.items():
                if instance_id not in self._tracked:
                    tracked = Tracked(group, "Pending")
                    self._tracked[instance_id] = tracked
                    self._start(instance_id, tracked, LAUNCHING, "Pending:Wait", "InService")
            for instance_id, tracked in list(self._tracked.items()):
                if instance_id not in current and tracked.state not in ("Terminated",):
                    tracked.state = "Terminated"
                for action in tracked.actions:
                    if action.result is None and self._clock() >= action.deadline:
                        action.result = action.hook.default_result
                        self._after_result(instance_id, tracked)
            for instance_id, before in list(self._replacing.items()):
                tracked = self._tracked[instance_id]
                replaced = any(
                    i not in before and t.group == tracked.group and t.state == "InService" for i, t in self._tracked.items()
                )
                if tracked.state != "InService":
                    del self._replacing[instance_id]
                elif replaced:
                    del self._replacing[instance_id]
                    self._decrement[instance_id] = True
                    self._start(instance_id, tracked, TERMINATING, "Terminating:Wait", "Terminating:Proceed")

    def state(self, instance_id: str) -> str | None:
        with self._lock:
            self.sync()
            tracked = self._tracked.get(instance_id)
            return tracked.state if tracked else None

    def group_of(self, instance_id: str) -> str | None:
        with self._lock:
            tracked = self._tracked.get(instance_id)
            return tracked.group if tracked else None

    def in_service(self) -> dict[str, str]:
        """Instance id → group, for the instances InService (those a group's target groups hold)."""
        with self._lock:
            self.sync()
            return {i: t.group for i, t in self._tracked.items() if t.state == "InService"}

    def _active(self, group: str, hook: str, instance_id: str | None, token: str | None) -> tuple[str, Tracked, Action]:
        for candidate, tracked in self._tracked.items():
            if tracked.group != group or not tracked.state.endswith(":Wait"):
                continue
            for action in tracked.actions:
                if action.hook.name != hook or action.result is not None:
                    continue
                if (instance_id and candidate == instance_id) or (token and action.token == token):
                    return candidate, tracked, action
        raise LifecycleError(f"No active Lifecycle Action found with instance ID {instance_id or token}")

    def complete(self, group: str, hook: str, result: str, instance_id: str | None = None, token: str | None = None) -> None:
        if result not in ("CONTINUE", "ABANDON"):
            raise LifecycleError(f"Invalid lifecycle action result: {result}")
        if not instance_id and not token:
            raise LifecycleError("Either instance ID or lifecycle action token must be specified")
        with self._lock:
            self.sync()
            found, tracked, action = self._active(group, hook, instance_id, token)
            action.result = result
            self._after_result(found, tracked)

    def heartbeat(self, group: str, hook: str, instance_id: str | None = None, token: str | None = None) -> None:
        with self._lock:
            self.sync()
            _, _, action = self._active(group, hook, instance_id, token)
            action.deadline = self._clock() + action.hook.heartbeat_timeout

    def terminate(self, instance_id: str, decrement: bool) -> None:
        """TerminateInstanceInAutoScalingGroup: the instance enters its termination hooks."""
        with self._lock:
            self.sync()
            tracked = self._tracked.get(instance_id)
            if tracked is None or tracked.state in ("Terminated",) or tracked.state.startswith("Terminating"):
                raise LifecycleError(f"Instance Id not found - No managed instance found for instance ID: {instance_id}")
            minimum, desired = self._groups.sizes(tracked.group)
            if decrement and desired <= minimum:
                raise LifecycleError(
                    f"Currently, desiredSize equals minSize ({minimum}). Terminating instance without replacement will "
                    "violate group's min size constraint. Either set shouldDecrementDesiredCapacity flag to false or "
                    "lower group's min size."
                )
            self._decrement[instance_id] = decrement
            self._start(instance_id, tracked, TERMINATING, "Terminating:Wait", "Terminating:Proceed")

    def unhealthy(self, instance_id: str) -> None:
        """SetInstanceHealth Unhealthy: an InService instance is replaced, its replacement InService first; one
        in another state is left to its state."""
        with self._lock:
            self.sync()
            tracked = self._tracked.get(instance_id)
            if tracked is not None and tracked.state == "InService" and instance_id not in self._replacing:
                self._replacing[instance_id] = set(self._tracked)
                self._groups.launch_replacement(tracked.group)
                self.sync()

    def _after_result(self, instance_id: str, tracked: Tracked) -> None:
        # ABANDON on launch ends the launch at once, whatever the other hooks' actions.
        abandoned = tracked.state == "Pending:Wait" and any(a.result == "ABANDON" for a in tracked.actions)
        if any(a.result is None for a in tracked.actions) and not abandoned:
            return
        if tracked.state == "Pending:Wait":
            if any(a.result == "ABANDON" for a in tracked.actions):
                tracked.state = "Terminating:Proceed"
                self._decrement[instance_id] = False
            else:
                tracked.state = "InService"
                return
        elif tracked.state == "Terminating:Wait":
            tracked.state = "Terminating:Proceed"
        self._finish(instance_id, tracked)

    def _finish(self, instance_id: str, tracked: Tracked) -> None:
        if tracked.state != "Terminating:Proceed":
            return
        tracked.state = "Terminated"
        tracked.actions = []
        self._groups.terminate(instance_id, self._decrement.pop(instance_id, False))
