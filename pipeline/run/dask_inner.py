"""The entry point of a Dask worker's inner pool processes (`dask_executor.InnerPool`), in a
module of its own: a process spawned to run it imports this and the worker, not Dask."""

from __future__ import annotations

import ctypes
import os
import signal

from pipeline.run.worker import worker_main

_PR_SET_PDEATHSIG = 1


def guarded_worker_main(connection, preload, progress, parent_pid: int) -> None:
    """`worker_main`, in a process that gets SIGTERM when the Dask worker process dies."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: the plugin's teardown is the only guard
        pass
    if os.getppid() != parent_pid:  # the Dask worker died before the request took effect
        os._exit(0)
    worker_main(connection, preload, progress)
