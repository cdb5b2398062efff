"""Where the compiled kernels are kept, and a notice when they are compiled.

The kernels are compiled by numba on first use (``cache=True``: once per signature, then
read back from the cache).  numba keeps that cache in ``__pycache__`` beside the source by
default, which reinstalling the package throws away.  Here the kernels of this package are
cached instead in :func:`cache_dir`, a per-user directory keyed by the package, numba and
Python versions, so that reinstalling the same version keeps it:

* ``SEMINAIVE_CACHE_DIR`` if set, else ``NUMBA_CACHE_DIR/seminaive`` if set (a cache
  directory the user chose for numba is respected), else the platform's user cache
  directory (``~/.cache/seminaive`` on Linux);
* below it, ``<seminaive version>-numba<numba version>-py<major><minor>``.

A cached kernel is used only if the sources of every kernel module of the package are
those it was compiled from (a content hash, so a reinstall of the same files keeps it and
an edit of a kernel, or of a kernel it calls in another module, recompiles it).  The hash
also names a subdirectory, so that two installations of the same version with different
sources (a development checkout beside a release) keep caches of their own instead of
overwriting each other's, and an index written by other sources is never read: numba
unpickles an index before it checks its stamp, and fails outright on a type that has
moved since.  If the directory cannot be written, numba's own locations are used.

:func:`install` must run before any kernel is decorated (``seminaive.kernels`` imports
this module first).  It also prints, the first time each learner compiles kernels in
a process (cache misses only), one line on standard error naming it, e.g. ``seminaive: compiling
kernels for AODE (first use; cached afterwards)...``; ``SEMINAIVE_COMPILE_NOTICE=0``
silences it.
"""

import functools
import hashlib
import os
import sys
from pathlib import Path

import numba
from numba.core import caching, config, event

from .._version import __version__
from ._caller import caller_frame

#: environment variable naming the cache directory's base
CACHE_ENV = "SEMINAIVE_CACHE_DIR"
#: environment variable that, set to 0, silences the compilation notice
NOTICE_ENV = "SEMINAIVE_COMPILE_NOTICE"

_PACKAGE = Path(__file__).resolve().parents[1]


def cache_key():
    """The name of the cache directory of this installation: the versions of the package,
    numba and Python, e.g. ``0.1.0-numba0.61.0-py312``.

    Returns
    -------
    str
    """
    return (f"{__version__}-numba{numba.__version__}"
            f"-py{sys.version_info[0]}{sys.version_info[1]}")


def cache_dir(environ=None):
    """The directory the compiled kernels are cached in (see the module docstring).

    Parameters
    ----------
    environ : mapping, optional
        The environment variables to read (default ``os.environ``).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> from seminaive.kernels._cache import cache_dir, cache_key
    >>> path = cache_dir({"SEMINAIVE_CACHE_DIR": "/tmp/kernels"})
    >>> path.parent.as_posix(), path.name == cache_key()
    ('/tmp/kernels', True)
    """
    environ = os.environ if environ is None else environ
    if environ.get(CACHE_ENV):
        base = Path(environ[CACHE_ENV])
    elif environ.get("NUMBA_CACHE_DIR"):
        base = Path(environ["NUMBA_CACHE_DIR"]) / "seminaive"
    else:
        from numba.misc.appdirs import AppDirs

        base = Path(AppDirs("seminaive", appauthor=False).user_cache_dir)
    return base / cache_key()


@functools.cache
def _sources_stamp():
    """A hash of the source of every module of the package that defines numba kernels."""
    digest = hashlib.sha256(cache_key().encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        data = path.read_bytes()
        if b"njit" in data:
            digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + data)
    return digest.hexdigest()


@functools.cache
def _writable(path):
    try:
        os.makedirs(path, exist_ok=True)
        probe = Path(path) / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        return False
    return True


@functools.cache
def _process_cache_dir():
    """:func:`cache_dir` as the process started (read once)."""
    return cache_dir()


@functools.cache
def _cache_path(py_file):
    """The cache directory of the kernels of the source file ``py_file``, None when the
    file is not part of this package or the directory cannot be written."""
    try:
        sub = Path(py_file).resolve().parent.relative_to(_PACKAGE).as_posix()
    except ValueError:
        return None  # not a kernel of this package: numba's own locators
    path = str(_process_cache_dir() / _sources_stamp()[:16] / sub.replace("/", "_"))
    return path if _writable(path) else None


class PackageCacheLocator(caching._CacheLocator):
    """numba cache locator of this package's kernels: :func:`cache_dir`, one
    subdirectory per package module directory, stamped by the package's kernel sources."""

    def __init__(self, py_func, path):
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = path

    def ensure_cache_path(self):
        if not _writable(self._cache_path):
            raise OSError(f"cannot write {self._cache_path}")

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return _sources_stamp()

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        path = _cache_path(py_file)
        return None if path is None else cls(py_func, path)


# --------------------------------------------------------------------------------------------
# The notice
# --------------------------------------------------------------------------------------------

_noticed = set()


def _learner_name():
    """The class name of the outermost estimator of this package on the call stack (the
    learner whose fit or predict is compiling; in a thread of
    :func:`._threads.parallel_calls`, on the stack of the thread that started it), or
    None."""
    for frame in (sys._getframe(2), caller_frame()):
        name = None
        while frame is not None:
            owner = frame.f_locals.get("self")
            cls = type(owner)
            if (owner is not None and cls.__module__.startswith("seminaive.")
                    and hasattr(owner, "get_params")):
                name = cls.__name__
            frame = frame.f_back
        if name is not None:
            return name
    return None


class _CompileNotice(event.Listener):
    """Prints the notice when numba starts compiling a kernel of this package (numba
    signals compilation only on a cache miss)."""

    def on_start(self, ev):
        dispatcher = ev.data.get("dispatcher")
        func = getattr(dispatcher, "py_func", None)
        if func is None or not func.__module__.startswith("seminaive."):
            return
        if os.environ.get(NOTICE_ENV, "1") == "0":
            return
        name = _learner_name()
        if name in _noticed:
            return
        _noticed.add(name)
        what = f"kernels for {name}" if name else "kernels"
        print(f"seminaive: compiling {what} (first use; cached afterwards)...",
              file=sys.stderr, flush=True)

    def on_end(self, ev):
        pass


_installed = []


def install():
    """Put :class:`PackageCacheLocator` first among numba's cache locators (unless
    ``NUMBA_CACHE_LOCATOR_CLASSES`` chooses them) and register the compilation notice;
    once per process."""
    if _installed:
        return
    _installed.append(True)
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.62
    locators = impl._locator_classes
    if not getattr(config, "CACHE_LOCATOR_CLASSES", None) and PackageCacheLocator not in locators:
        locators.insert(0, PackageCacheLocator)
    event.register("numba:compile", _CompileNotice())


install()
