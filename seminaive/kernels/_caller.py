"""Which thread started the current one: a thread of :func:`._threads.parallel_calls`
records the thread that called it, so that the compile notice (:mod:`._cache`) can read
that thread's stack to name the learner the kernels run for.

It imports nothing of the package: the thread helper and the compile cache both use it,
and the compile cache is imported by the first kernel call (:mod:`._jit`), which the
thread helper's kernels make."""

import sys
import threading

_local = threading.local()


def set_caller(ident):
    """Record ``ident`` (a thread's identifier, or None) as the caller of this thread.

    Parameters
    ----------
    ident : int or None
        ``threading.get_ident()`` of the thread that started this one.
    """
    _local.caller = ident


def caller_frame():
    """In a thread of :func:`._threads.parallel_calls`: the current frame of the thread
    that called it (whose stack shows what the kernels run for); None in any other thread.

    Returns
    -------
    frame or None

    Examples
    --------
    >>> from seminaive.kernels._caller import caller_frame
    >>> caller_frame() is None  # this thread was not started by parallel_calls
    True
    """
    ident = getattr(_local, "caller", None)
    return None if ident is None else sys._current_frames().get(ident)
