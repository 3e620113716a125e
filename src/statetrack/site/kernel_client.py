"""A Jupyter kernel client for papermill whose waits re-poll every second, so a missed wake-up cannot stall a run.

nbclient waits for a cell's reply with ``shell_channel.get_msg(timeout=None)`` (and for its outputs the
same way on IOPub). On this project's machines that wait has hung for good now and then, most often on a
widget cell under load: the kernel had replied and gone idle, the message sat in the socket, and the
asyncio poller never woke (nbclient issue #312 reports the same with ipywidgets). pyzmq's async poll
checks the socket once more when its timeout fires, so a wait split into one-second polls picks up a
message the wake-up missed. Finite waits are split the same way (a cell timeout of 300 s once returned
a reply only when it fired, 300 s late, in the test suite's ne3 widget cell). Nothing else changes: a
message that is there is returned at once, a timeout still ends the wait when it is due, and a dead
kernel still ends the cell through nbclient's liveness check.

Used in: ``book.execute_notebook`` (``kernel_manager_class``), tests/test_book.py.
"""

from __future__ import annotations

import time
from queue import Empty
from typing import Any

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.manager import AsyncKernelManager
from traitlets import DottedObjectName, Type

#: The longest single poll inside any wait, in seconds.
POLL_S = 1.0


class PatientChannel(AsyncZMQSocketChannel):
    """A channel whose ``get_msg`` polls at most ``POLL_S`` at a time until a message comes or its timeout ends."""

    async def get_msg(self, timeout: float | None = None) -> dict[str, Any]:  # type: ignore[override]
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = POLL_S if deadline is None else min(POLL_S, max(0.0, deadline - time.monotonic()))
            try:
                return await super().get_msg(left)
            except Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise


class PatientKernelClient(AsyncKernelClient):
    """nbclient's kernel client with patient shell and IOPub channels."""

    shell_channel_class = Type(PatientChannel)  # type: ignore[assignment]
    iopub_channel_class = Type(PatientChannel)  # type: ignore[assignment]


class PatientKernelManager(AsyncKernelManager):
    """nbclient's kernel manager, handing out ``PatientKernelClient``s."""

    client_class = DottedObjectName("statetrack.site.kernel_client.PatientKernelClient")
    client_factory = Type(klass=PatientKernelClient)


__all__ = ["POLL_S", "PatientChannel", "PatientKernelClient", "PatientKernelManager"]
