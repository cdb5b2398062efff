"""The kernels' numba decorators are deferred to the first use of a kernel
(:mod:`seminaive.kernels._jit`): kernels calling kernels, ``prange`` loops, inlined
helpers and kernels kept out of the module globals compile as when numba decorated them
at import."""

import json
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from seminaive.kernels import _jit

ROOT = Path(__file__).resolve().parents[2]

# a module of the package defining kernels as the kernel modules do, in a fresh process
# where numba is not loaded yet
_SCRIPT = textwrap.dedent('''
    import json, pickle, sys, types
    import numpy as np
    import seminaive
    from seminaive.kernels import _jit

    assert "numba" not in sys.modules
    module = types.ModuleType("seminaive._probe")
    sys.modules[module.__name__] = module
    exec(compile("""
    from seminaive.kernels._jit import njit, prange

    @njit(inline="always")
    def square(x):
        return x * x

    @njit
    def total(x):
        s = 0.0
        for i in range(x.shape[0]):
            s += square(x[i])
        return s

    @njit(parallel=True)
    def squares(x):
        out = np.empty_like(x)
        for i in prange(x.shape[0]):
            out[i] = square(x[i])
        return out

    @njit
    def apply(f, x):
        return f(x)

    KEPT = (total,)
    """, "<probe>", "exec"), module.__dict__)
    module.np = np
    before = {"numba": "numba" in sys.modules, "loaded": _jit.loaded(),
              "lazy": type(module.total).__name__, "repr": repr(module.total)}
    x = np.arange(5.0)
    out = {"total": module.total(x), "squares": module.squares(x).tolist()}
    after = {"numba": "numba" in sys.modules, "loaded": _jit.loaded(),
             "total": type(module.total).__name__, "prange": module.prange is __import__(
                 "numba").prange, "kept": type(module.KEPT[0]).__name__}
    # a lazy kernel that escaped the rebinding: called from Python and passed to a kernel
    out["kept"] = module.KEPT[0](x)
    out["passed"] = module.apply(module.KEPT[0], x)
    out["parallel"] = bool(module.squares.targetoptions.get("parallel"))
    out["pickled"] = type(pickle.loads(pickle.dumps(module.KEPT[0]))).__name__
    # a module imported after numba was loaded takes numba's own prange
    late = types.ModuleType("seminaive._late")
    sys.modules[late.__name__] = late
    exec(compile("""
    import numpy as np
    from seminaive.kernels._jit import njit, prange

    @njit(parallel=True)
    def doubled(x):
        out = np.empty_like(x)
        for i in prange(x.shape[0]):
            out[i] = 2 * x[i]
        return out
    """, "<late>", "exec"), late.__dict__)
    out["late"] = late.doubled(x).tolist()
    after["late_prange"] = late.prange is __import__("numba").prange
    print(json.dumps({"before": before, "after": after, "out": out}))
''')


def test_kernels_decorated_before_numba_is_loaded_compile_as_numba_kernels():
    env = dict(os.environ, PYTHONPATH=str(ROOT), SEMINAIVE_COMPILE_NOTICE="0")
    done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                          env=env, timeout=600, cwd=str(ROOT))
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["before"] == {"numba": False, "loaded": False, "lazy": "LazyKernel",
                              "repr": "<lazy kernel seminaive._probe.total (numba not "
                                      "loaded yet)>"}
    # the module's globals now hold numba's dispatchers and numba's prange
    assert seen["after"] == {"numba": True, "loaded": True, "total": "CPUDispatcher",
                             "prange": True, "kept": "LazyKernel", "late_prange": True}
    assert seen["out"] == {"total": 30.0, "squares": [0.0, 1.0, 4.0, 9.0, 16.0],
                           "kept": 30.0, "passed": 30.0, "parallel": True,
                           "pickled": "CPUDispatcher", "late": [0.0, 2.0, 4.0, 6.0, 8.0]}


def test_a_lazy_kernel_forwards_to_its_dispatcher():
    def cube(x):
        """The cube of ``x``."""
        return x * x * x

    kernel = _jit.LazyKernel(cube, (), {"cache": False})
    assert kernel.__doc__ == cube.__doc__ and kernel.__wrapped__ is cube
    assert kernel.__name__ == "cube" and kernel.py_func is cube
    _jit._pending.append(kernel)  # as _jit.njit records it
    assert kernel(3) == 27  # made by load()
    assert kernel.signatures and kernel.dispatcher.py_func is cube
    assert "loaded" in repr(kernel)
    assert kernel.__get__(None, object) is kernel
    bound = kernel.__get__(np.float64(2.0), object)
    assert bound() == 8.0  # binds as a method, as numba's dispatchers


def test_once_numba_is_loaded_njit_is_numbas():
    from numba.core.dispatcher import Dispatcher

    _jit.load()
    kernel = _jit.njit(cache=False)(lambda x: x + 1)
    assert isinstance(kernel, Dispatcher) and kernel(1) == 2
    assert _jit.get_num_threads() >= 1
    assert list(_jit.prange(3)) == [0, 1, 2]


def test_a_lazy_kernel_pickles_as_a_reference_to_its_global():
    from seminaive.tables import counting

    lazy = _jit.LazyKernel(counting.regrid.py_func)
    assert pickle.loads(pickle.dumps(lazy)) is counting.regrid
