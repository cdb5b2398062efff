"""The counting and classification kernels run in parallel (numba prange): with 2 threads
they give exactly the results of 1 thread."""

import os
import subprocess
import sys

import numba
import numpy as np
from numba import njit, prange
from numpy.testing import assert_array_equal

from seminaive import A2DE, AODE
from seminaive.datasets import RandomBayesianNetwork


@njit(parallel=True)
def _thread_ids(n):
    out = np.empty(n, dtype=np.int64)
    for i in prange(n):
        out[i] = numba.get_thread_id()
    return out


def compare_one_and_two_threads():
    """Fit and predict with 1 then 2 threads; the results must be identical."""
    net = RandomBayesianNetwork(n_attributes=12, n_values=4, n_classes=3, random_state=0)
    X, y = net.sample(20_000, random_state=1)
    X_test, _ = net.sample(5_000, random_state=2)
    results = {}
    saved = numba.get_num_threads()
    try:
        for threads in (1, 2):
            numba.set_num_threads(threads)
            assert np.unique(_thread_ids(1000)).size == threads  # really that many threads
            runs = []
            for cls in (AODE, A2DE):
                model = cls(categorical_features="all").fit(X, y)
                runs.append((model.table_.counts.copy(), model.predict_proba(X_test)))
            results[threads] = runs
    finally:
        numba.set_num_threads(saved)
    for (counts1, proba1), (counts2, proba2) in zip(results[1], results[2], strict=True):
        assert_array_equal(counts1, counts2)
        assert_array_equal(proba1, proba2)


def test_two_threads_equal_one_thread():
    if numba.config.NUMBA_NUM_THREADS >= 2:
        compare_one_and_two_threads()
        return
    # a one-core machine: start a process whose numba thread pool has two threads
    env = dict(os.environ, NUMBA_NUM_THREADS="2")
    done = subprocess.run([sys.executable, __file__], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "identical" in done.stdout


if __name__ == "__main__":
    compare_one_and_two_threads()
    print("identical")


def test_a_kernel_new_to_the_process_is_compiled_here_then_every_call_runs_on_the_threads():
    """A kernel not compiled in this process yet (new, or only in the on-disk cache) is
    compiled in the calling thread for the first call's types, without running it; then
    every call goes to the threads, as later fits' calls do (running the first call in
    the calling thread made each process's first fit serial)."""
    import threading

    from seminaive.kernels._threads import parallel_calls

    events = []

    class Kernel:
        signatures = []

        def typeof_pyval(self, value):
            return type(value).__name__

        def compile(self, sig):
            events.append(("compile", sig))
            self.signatures = [sig]

        def __call__(self, lo, hi, out):
            events.append(("call", lo, threading.get_ident()))
            out[lo:hi] = lo

    saved = numba.get_num_threads()
    try:
        numba.set_num_threads(2)
        out = np.zeros(4)
        parallel_calls(Kernel(), [(0, 2, out), (2, 4, out)])
    finally:
        numba.set_num_threads(saved)
    assert events[0] == ("compile", ("int", "int", "ndarray"))
    assert sorted(e[1] for e in events[1:]) == [0, 2]  # each call once, after the compile
    assert len({e[2] for e in events[1:]}) == 2  # on two threads
    assert out.tolist() == [0.0, 0.0, 2.0, 2.0]


def test_the_calling_thread_keeps_taking_calls_and_no_more_than_the_threads_run_at_once():
    """With more calls than threads, every runner (the calling thread one of them) takes
    the next call when it is done: the calling thread runs several calls, and at most
    ``threads`` calls run at the same time (the calling thread used to run the first call
    only and then wait, while a pool of ``threads`` workers ran the rest beside it)."""
    import threading
    import time

    from seminaive.kernels._threads import parallel_calls

    lock = threading.Lock()
    running, most, where = [0], [0], []

    def kernel(i, out):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            where.append(threading.get_ident())
        time.sleep(0.02)  # releases the GIL, as a nogil kernel does
        out[i] = i
        with lock:
            running[0] -= 1

    saved = numba.get_num_threads()
    try:
        numba.set_num_threads(2)
        out = np.zeros(12)
        parallel_calls(kernel, [(i, out) for i in range(12)])
    finally:
        numba.set_num_threads(saved)
    assert out.tolist() == list(range(12))
    assert most[0] == 2
    assert where.count(threading.get_ident()) >= 3
    assert len(set(where)) == 2


def test_an_error_in_one_call_stops_the_others_taking_calls_and_is_raised():
    import threading
    import time

    import pytest

    from seminaive.kernels._threads import parallel_calls

    done, running, at_raise = [], [0], []
    lock = threading.Lock()

    def kernel(i):
        with lock:
            running[0] += 1
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        if i == 1:
            raise ValueError("call 1 failed")
        with lock:
            done.append(i)

    saved = numba.get_num_threads()
    try:
        numba.set_num_threads(2)
        with pytest.raises(ValueError, match="call 1 failed"):
            try:
                parallel_calls(kernel, [(i,) for i in range(50)])
            except ValueError:
                at_raise.append(running[0])
                raise
    finally:
        numba.set_num_threads(saved)
    assert at_raise == [0]  # every runner had stopped when the error was raised
    time.sleep(0.3)
    assert len(done) < 5  # and none took a call after the error
