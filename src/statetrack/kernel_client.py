"""A Jupyter kernel client for papermill whose open-ended waits re-poll, so a missed wake-up cannot hang a run.

nbclient waits for a cell's reply with ``shell_channel.get_msg(timeout=None)`` (and for its outputs the
same way on IOPub). On this project's machines that wait has hung for good now and then, most often on a
widget cell under load: the kernel had replied and gone idle, the message sat in the socket, and the
asyncio poller never woke (nbclient issue #312 reports the same with ipywidgets). pyzmq's async poll
checks the socket once more when its timeout fires, so a wait split into one-second polls picks up a
message the wake-up missed. Nothing else changes: a message that is there is returned at once, a finite
timeout is passed through, and a dead kernel still ends the cell through nbclient's liveness check.

Used in: ``book.execute_notebook`` (``kernel_manager_class``), tests/test_book.py.
"""

from __future__ import annotations

from queue import Empty
from typing import Any

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.manager import AsyncKernelManager
from traitlets import DottedObjectName, Type

#: Seconds of one poll inside an open-ended wait.
POLL_S = 1.0


class PatientChannel(AsyncZMQSocketChannel):
    """A channel whose ``get_msg(timeout=None)`` polls ``POLL_S`` at a time until a message comes."""

    async def get_msg(self, timeout: float | None = None) -> dict[str, Any]:  # type: ignore[override]
        if timeout is not None:
            return await super().get_msg(timeout)
        while True:
            try:
                return await super().get_msg(POLL_S)
            except Empty:
                continue


class PatientKernelClient(AsyncKernelClient):
    """nbclient's kernel client with patient shell and IOPub channels."""

    shell_channel_class = Type(PatientChannel)  # type: ignore[assignment]
    iopub_channel_class = Type(PatientChannel)  # type: ignore[assignment]


class PatientKernelManager(AsyncKernelManager):
    """nbclient's kernel manager, handing out ``PatientKernelClient``s."""

    client_class = DottedObjectName("statetrack.kernel_client.PatientKernelClient")
    client_factory = Type(klass=PatientKernelClient)


__all__ = ["POLL_S", "PatientChannel", "PatientKernelClient", "PatientKernelManager"]
