"""Parallel loops on Python threads over kernels that release the GIL.

A kernel with a ``prange`` loop makes numba compile a parallel version of it on first use:
its loop body is outlined, typed again and optimised again with every kernel it calls, which
takes seconds per kernel.  Where the iterations of a loop are independent and write
disjoint outputs, the loop body is instead one ordinary ``nogil`` kernel over a range of
iterations, and :func:`parallel_calls` runs those ranges on up to
:func:`numba.get_num_threads` threads: the same numbers (every iteration computes exactly
what it computed in the ``prange`` loop) for a fraction of the compilation.
"""

import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from numba import get_num_threads, njit

_local = threading.local()


def _remember_caller(ident):
    _local.caller = ident


def caller_frame():
    """In a thread of :func:`parallel_calls`: the current frame of the thread that called
    it (whose stack shows what the kernels run for); None in any other thread."""
    ident = getattr(_local, "caller", None)
    return None if ident is None else sys._current_frames().get(ident)


def parallel_calls(kernel, calls):
    """Run ``kernel(*args)`` for every ``args`` of ``calls``, on up to
    :func:`numba.get_num_threads` threads (in this thread if there is one thread or one
    call); the kernel must release the GIL (``nogil=True``) and the calls must write
    disjoint outputs.

    Parameters
    ----------
    kernel : callable
        A numba kernel compiled with ``nogil=True``.
    calls : list of tuple
        The arguments of every call.

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive.kernels._threads import parallel_calls
    >>> out = np.zeros(4)
    >>> parallel_calls(lambda lo, hi: out.__setitem__(slice(lo, hi), lo), [(0, 2), (2, 4)])
    >>> out.tolist()
    [0.0, 0.0, 2.0, 2.0]
    """
    threads = min(get_num_threads(), len(calls))
    if threads <= 1:
        for args in calls:
            kernel(*args)
        return
    with ThreadPoolExecutor(max_workers=threads, initializer=_remember_caller,
                            initargs=(threading.get_ident(),)) as pool:
        for done in [pool.submit(kernel, *args) for args in calls]:
            done.result()


def even_parts(n_items, n_parts):
    """Bounds ``(lo, hi)`` of ``n_parts`` consecutive parts of ``range(n_items)`` (as
    numba's ``prange`` splits a loop over threads), empty parts left out.

    Examples
    --------
    >>> from seminaive.kernels._threads import even_parts
    >>> even_parts(5, 2)
    [(0, 2), (2, 5)]
    """
    bounds = [p * n_items // n_parts for p in range(n_parts + 1)]
    return [(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True) if hi > lo]


def thread_parts():
    """The number of parts a loop is split into: one per thread."""
    return max(1, get_num_threads())


@njit(cache=True)
def part_bounds(start, stop, part, n_parts):
    """Bounds ``(lo, hi)`` of part ``part`` of ``n_parts`` consecutive parts of
    ``range(start, stop)`` (as numba's ``prange`` splits a loop over threads)."""
    count = max(stop - start, 0)
    return start + part * count // n_parts, start + (part + 1) * count // n_parts
