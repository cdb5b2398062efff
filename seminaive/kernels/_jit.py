"""numba's decorators, imported when the first kernel is used rather than at import.

``import seminaive`` does not import numba (about a quarter to most of a second of the
import on its own): the kernel modules of the package take ``njit``, ``prange`` and
``get_num_threads`` from here instead of from numba.  Until numba is loaded, :func:`njit`
records the function and its options in a :class:`LazyKernel`.  The first call of any
kernel (or of :func:`get_num_threads`, or any attribute of a kernel's dispatcher, such as
``signatures``) runs :func:`load` once per process:

1. it imports numba and :mod:`._cache` (which puts the package's compile cache first among
   numba's cache locators and registers the compile notice: before any kernel is made);
2. it makes the numba dispatcher of every lazy kernel recorded so far, with the options
   it was decorated with (``cache=True`` and all);
3. it rebinds every global of every module of the package that holds a lazy kernel to its
   dispatcher, and the stand-ins :func:`prange` and :func:`get_num_threads` to numba's.

numba finds the kernels a kernel calls, and recognises ``prange``, by reading the
caller's module globals when it compiles it: after step 3 it sees exactly the objects it
saw when the kernels were decorated at import, so every kernel compiles, inlines and is
cached as before.  A lazy kernel that escaped the rebinding (kept in a container, passed
as an argument) forwards its calls and attributes to its dispatcher, and numba types it
as its dispatcher.  Once numba is loaded, :func:`njit` is ``numba.njit`` itself.

Why the globals are rebound rather than numba taught to type the lazy objects only: numba
recognises ``prange`` and the ``inline="always"`` helpers by the objects it finds in the
caller's globals, so those must be numba's own; and a lazy package namespace would not
help, since ``from seminaive import AODE`` needs the tables, whose modules hold kernels.

Examples
--------
>>> from seminaive.kernels._jit import njit
>>> @njit(cache=False)
... def twice(x):
...     return 2 * x
>>> twice(21)
42
"""

import functools
import sys
import threading
import types

__all__ = ["LazyKernel", "get_num_threads", "load", "loaded", "njit", "prange"]

_lock = threading.RLock()
#: the numba module once :func:`load` ran, else None
_numba = None
#: lazy kernels without a dispatcher yet
_pending = []
#: the package whose modules' globals are rebound
_PACKAGE = __name__.split(".")[0]


def prange(*args):
    """Stand-in for ``numba.prange`` until numba is loaded (then every module's global
    ``prange`` is ``numba.prange``); called from Python, it is ``range``, as numba's."""
    return range(*args)


class LazyKernel:
    """A function decorated with :func:`njit` before numba was loaded: its numba dispatcher
    is made by :func:`load`, on first use of any kernel.

    Calling it, or reading an attribute of the dispatcher (``py_func``, ``signatures``,
    ``overloads``, ...), loads numba and forwards to the dispatcher.  It pickles as a
    reference to its module's global of the same name.

    Parameters
    ----------
    py_func : function
        The Python function of the kernel.
    args : tuple
        Positional arguments of ``numba.njit`` (an explicit signature).
    options : dict
        Keyword arguments of ``numba.njit`` (``cache=True``, ``parallel=...``).

    Attributes
    ----------
    py_func : function
        The Python function of the kernel.
    """

    def __init__(self, py_func, args=(), options=None):
        self._dispatcher = None
        self._args = tuple(args)
        self._options = dict(options or {})
        self.py_func = py_func
        functools.update_wrapper(self, py_func)

    @property
    def dispatcher(self):
        """The numba dispatcher of the kernel (made on first use)."""
        if self._dispatcher is None:
            load()
        return self._dispatcher

    def __call__(self, *args, **kwargs):
        return self.dispatcher(*args, **kwargs)

    def __getattr__(self, name):  # only for names not set here: the dispatcher's
        if name.startswith("__") or name in ("_dispatcher", "_args", "_options"):
            raise AttributeError(name)
        return getattr(self.dispatcher, name)

    def __get__(self, obj, objtype=None):  # as numba's dispatcher: binds as a method
        return self if obj is None else types.MethodType(self, obj)

    def __reduce__(self):
        return _global, (self.__module__, self.__qualname__)

    def __repr__(self):
        state = "loaded" if self._dispatcher is not None else "numba not loaded yet"
        return f"<lazy kernel {self.__module__}.{self.__qualname__} ({state})>"


def _global(module, qualname):
    """The object named ``qualname`` in ``module`` (how a :class:`LazyKernel` unpickles)."""
    import importlib

    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def njit(*args, **options):
    """``numba.njit``, deferred until numba is loaded (see the module docstring); used as
    ``@njit`` or ``@njit(cache=True, ...)``.

    Parameters
    ----------
    *args
        The function (bare ``@njit``), or an explicit signature.
    **options
        ``numba.njit``'s options.

    Returns
    -------
    LazyKernel or numba dispatcher, or a decorator making one
    """
    if _numba is not None:
        return _numba.njit(*args, **options)
    if len(args) == 1 and not options and isinstance(args[0], types.FunctionType):
        return _lazy(args[0], (), {})
    return functools.partial(_lazy_decorate, args, options)


def _lazy_decorate(args, options, func):
    if _numba is not None:  # numba was loaded between the two calls
        return _numba.njit(*args, **options)(func)
    return _lazy(func, args, options)


def _lazy(func, args, options):
    with _lock:
        if _numba is not None:
            return _numba.njit(*args, **options)(func)
        kernel = LazyKernel(func, args, options)
        _pending.append(kernel)
        return kernel


def loaded():
    """Whether numba has been loaded by :func:`load` (the first use of a kernel).

    Returns
    -------
    bool
    """
    return _numba is not None


def load():
    """Import numba, make the dispatchers of all the lazy kernels and rebind the package's
    globals to them (once per process; see the module docstring).

    Returns
    -------
    module
        numba.
    """
    global _numba
    if _numba is not None and not _pending:
        return _numba
    with _lock:
        if _numba is None:
            import numba

            from . import _cache

            _cache.install()  # before any dispatcher is made (idempotent)
            _register_typeof(numba)
            _numba = numba
        while _pending:
            kernel = _pending.pop(0)
            kernel._dispatcher = _numba.njit(*kernel._args, **kernel._options)(kernel.py_func)
        _rebind(_numba)
        # a module imported from now on takes numba's own objects from here
        globals().update(prange=_numba.prange, get_num_threads=_numba.get_num_threads)
    return _numba


def _register_typeof(numba):
    """numba types a lazy kernel that escaped the rebinding as its dispatcher."""
    from numba.core.typing.typeof import typeof_impl

    @typeof_impl.register(LazyKernel)
    def _typeof_lazy(val, c):
        return typeof_impl(val.dispatcher, c)


def _rebind(numba):
    """Every global of the package's modules holding a lazy kernel (or :func:`prange`, or
    :func:`get_num_threads`) now holds its dispatcher (or numba's function of that name,
    which a kernel may call too)."""
    for name, module in list(sys.modules.items()):
        if module is None or not (name == _PACKAGE or name.startswith(_PACKAGE + ".")):
            continue
        namespace = getattr(module, "__dict__", None)
        if namespace is None:
            continue
        for key, value in list(namespace.items()):
            if type(value) is LazyKernel:
                namespace[key] = value.dispatcher
            elif name != __name__ and (value is _PRANGE or value is _GET_NUM_THREADS):
                namespace[key] = getattr(numba, value.__name__)


def get_num_threads():
    """``numba.get_num_threads()`` (loads numba).

    Returns
    -------
    int
    """
    return load().get_num_threads()


#: the stand-ins, as defined above (after :func:`load`, this module's ``prange`` and
#: ``get_num_threads`` are numba's, for the modules imported later)
_PRANGE, _GET_NUM_THREADS = prange, get_num_threads
