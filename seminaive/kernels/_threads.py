"""Parallel loops on Python threads over kernels that release the GIL.

A kernel with a ``prange`` loop makes numba compile a parallel version of it on first use:
its loop body is outlined, typed again and optimised again with every kernel it calls,
which takes seconds per kernel.  Where the iterations of a loop are independent, write
disjoint outputs and each do much work (a whole combination's block of a table), the loop
body is instead one ordinary ``nogil`` kernel over a range of iterations, and
:func:`parallel_calls` runs those ranges on up to :func:`numba.get_num_threads` threads:
the same numbers (every iteration computes exactly what it computed in the ``prange``
loop) for a fraction of the compilation.  A hot loop (the wide scoring kernel, the family
learners' scoring) is compiled with ``parallel=NO_PARFORS``: numba then optimises it as
well as a ``prange`` body, without compiling it twice.
"""

import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

from ._caller import set_caller
from ._jit import get_num_threads

#: ``parallel=`` of a kernel run by :func:`parallel_calls` whose loop must stay as fast as
#: it was in a ``prange`` loop: numba's parallel pipeline with none of its transformations,
#: so no parfor body is outlined and compiled a second time.  Measured on
#: ``wide._predict_scores_wide``: it compiles in half the CPU seconds of the ``prange``
#: kernel and predicts as fast, where the same kernel compiled without ``parallel``
#: predicted 0.6x as fast.  numba warns, when it compiles such a kernel, that nothing was
#: made parallel: :func:`parallel_calls` silences that warning.
NO_PARFORS = {"comprehension": False, "reduction": False, "inplace_binop": False,
              "setitem": False, "numpy": False, "stencil": False, "fusion": False,
              "prange": False}

_pool = []
_pool_lock = threading.Lock()


def _executor(threads):
    """The process's thread pool, with at least ``threads`` workers (made on first use)."""
    with _pool_lock:
        if not _pool or _pool[0][1] < threads:
            if _pool:
                _pool.pop()[0].shutdown(wait=False)
            _pool.append((ThreadPoolExecutor(max_workers=threads,
                                             thread_name_prefix="seminaive"), threads))
        return _pool[0][0]


class _Calls:
    """The calls of one :func:`parallel_calls`, taken one at a time by its runners."""

    def __init__(self, calls):
        self._calls = iter(calls)
        self._lock = threading.Lock()
        self.failed = False

    def take(self):
        """The next call's arguments, or None when none is left or a runner failed."""
        with self._lock:
            return None if self.failed else next(self._calls, None)


def _drain(caller, kernel, queue, args):
    """Run ``kernel`` on ``args``, then on the calls of ``queue`` until none is left
    (``caller``: the thread that made the calls, for the compile notice; None in that
    thread itself)."""
    if caller is not None:
        set_caller(caller)
    try:
        while args is not None:
            if queue.failed:
                break
            kernel(*args)
            args = queue.take()
    except BaseException:
        queue.failed = True
        raise
    finally:
        if caller is not None:
            set_caller(None)


def parallel_calls(kernel, calls):
    """Run ``kernel(*args)`` for every ``args`` of ``calls``, on up to
    :func:`numba.get_num_threads` threads (in this thread if there is one thread or one
    call); the kernel must release the GIL (``nogil=True``) and the calls must write
    disjoint outputs.  A kernel not compiled yet runs its first call in this thread (it
    compiles there, where the compile notice sees which learner it is for).

    Parameters
    ----------
    kernel : callable
        A numba kernel compiled with ``nogil=True`` (and, for a hot loop,
        ``parallel=NO_PARFORS``).
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
    from numba.core.errors import NumbaPerformanceWarning  # not at package import

    with warnings.catch_warnings():
        # a kernel compiled with NO_PARFORS: numba says that nothing could be made parallel
        warnings.simplefilter("ignore", NumbaPerformanceWarning)
        _parallel_calls(kernel, calls)


def _parallel_calls(kernel, calls):
    threads = min(get_num_threads(), len(calls))
    if threads <= 1:
        for args in calls:
            kernel(*args)
        return
    if not getattr(kernel, "signatures", True):  # compiles (or loads from the cache): here
        _compile_here(kernel, calls)
        if not kernel.signatures:  # no way to compile without running: the first call here
            kernel(*calls[0])
            calls = calls[1:]
            if not calls:
                return
    # ``threads`` runners in all, this thread one of them: runner r runs call r first, then
    # each takes the next call left until none is (a runner that finishes early takes
    # more, and no more than ``threads`` calls run at once); after an error the runners
    # take no new call
    queue = _Calls(calls[threads:])
    pool = _executor(threads - 1)
    futures = [pool.submit(_drain, threading.get_ident(), kernel, queue, calls[r])
               for r in range(1, threads)]
    try:
        _drain(None, kernel, queue, calls[0])
    finally:
        for done in futures:
            done.exception()  # wait for every runner before anything is raised
    for done in futures:
        done.result()


def _compile_here(kernel, calls):
    """Compile ``kernel`` for the types of ``calls[0]`` in this thread, without running it
    (numba's dispatcher types the arguments and compiles, or loads the cached machine
    code, as its first call would), so that every call then runs on the threads: running
    the first call here instead made the first fit of each process serial in its threaded
    loops (each kernel is new to a process, cached or not)."""
    compile_for = getattr(kernel, "compile", None)
    typeof = getattr(kernel, "typeof_pyval", None)
    if compile_for is not None and typeof is not None:
        compile_for(tuple(typeof(a) for a in calls[0]))


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


def parts(n_items, work=None, min_work=1 << 16):
    """Bounds of the parts of ``range(n_items)`` given to the threads: one per thread, or a
    single part when ``work`` (an estimate of the entries the loop touches) is below
    ``min_work``, where starting threads would cost more than it saves.

    Examples
    --------
    >>> from seminaive.kernels._threads import parts
    >>> parts(10, work=100)
    [(0, 10)]
    """
    if work is not None and work < min_work:
        return [(0, n_items)] if n_items > 0 else []
    return even_parts(n_items, max(1, min(n_items, get_num_threads())))
