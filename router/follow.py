"""`dispatch --follow`: after the launch, watch the workload until it ends and
report how (`epm:workload-ended`). A failed or preempted workload is reported,
never relaunched elsewhere: a failure after launch is the workload's, not a
capacity miss, and cascading it would run the work twice."""

from __future__ import annotations

import time
from typing import Any

# A backend's read-back state -> how the workload ended. Anything else (running,
# starting, unknown: the backend could not answer) means look again later.
ENDED = {"completed": "succeeded", "failed": "failed", "preempted": "preempted",
         "stopped": "stopped", "gone": "deleted"}


def follow(dispatcher: Any, interval: float, timeout: float | None = None) -> dict[str, Any]:
    machine = dispatcher.selection
    if machine is None:
        return dispatcher.events.emit("epm:workload-ended", backend=None, state="unknown",
                                      cascaded=False)
    backend = dispatcher.backends[machine.backend]
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        state, details = backend.state(machine)
        if state in ENDED:
            return dispatcher.events.emit("epm:workload-ended", backend=machine.backend,
                                          state=ENDED[state], cascaded=False, **details)
        if deadline is not None and time.monotonic() > deadline:
            return dispatcher.events.emit("epm:workload-ended", backend=machine.backend,
                                          state="still-running", cascaded=False)
        dispatcher.ctx.stop.wait(interval)
        if dispatcher.signum is not None:
            from router.dispatch import Cancelled

            raise Cancelled(dispatcher.signum)
