"""Files written so that nothing is lost: a temporary file beside the target, renamed into
place only when it is complete.

Every file the library writes (model files, ``predict_stream`` outputs, experiment task
files, their tables, configuration and reports) goes through :func:`atomic_path`:

- only a regular file is ever written: a device, a FIFO, a folder or one of the inputs given
  as the target is refused with :class:`~seminaive.exceptions.InputError` before anything is
  written (:func:`check_output`, which a command calls before any work);
- on any failure, including an interrupted write, the previous file at the target path is
  untouched and no partial file remains; SIGTERM and SIGINT remove the temporary file before
  the process stops (the handlers are installed by the main thread only, for the time of the
  write, and the previous ones restored), and a temporary file left by a process that was
  killed outright (``kill -9``) is removed by the next write of the same target;
- the file keeps the mode of the file it replaces, and a new file gets the mode the umask
  gives (as ``open`` would), not ``0600``.
"""

import contextlib
import os
import secrets
import signal
import stat
import threading
import time

from .exceptions import InputError

#: a temporary name without a process id (written by earlier versions) is swept when older
STALE_SECONDS = 3600

_live = set()  # temporary paths being written by this process
_lock = threading.RLock()
_installed = {}  # signal number -> the handler ours replaced (main thread only)
_main_depth = 0  # atomic_path blocks open in the main thread


def _describe_kind(mode):
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_output(path, inputs=()):
    """Refuse an output path that cannot be written as a regular file, before any work.

    Parameters
    ----------
    path : str or path-like
        The file to write.
    inputs : iterable of str or path-like, optional
        Files the same command reads: the output may not be one of them.

    Returns
    -------
    str
        The path the file will be written at: ``path`` with symbolic links resolved (a link
        to a regular file is kept, and the file it points to is replaced).

    Raises
    ------
    InputError
        ``path`` is a folder, a device, a FIFO or a socket, one of ``inputs``, or its folder
        does not exist or cannot be written.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> check_output(os.path.join(folder, "model.npz")) == os.path.join(
    ...     os.path.realpath(folder), "model.npz")
    True
    >>> try:
    ...     check_output(folder)
    ... except InputError as err:
    ...     print(str(err).split("; ")[-1])
    give the path of a regular file
    """
    text = os.fspath(path)
    if not text:
        raise InputError("the output path is empty: give a file name")
    target = os.path.realpath(text)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise InputError(f"cannot write the output {text}: it is {_describe_kind(mode)}; give "
                         "the path of a regular file")
    if mode is not None:
        for source in inputs:
            if source is None or not isinstance(source, (str, os.PathLike)):
                continue
            with contextlib.suppress(OSError):
                if os.path.samefile(target, source):
                    raise InputError(f"cannot write the output {text}: it is the input "
                                     f"{os.fspath(source)}; give another output path")
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        raise InputError(f"cannot write the output {text}: the folder {os.path.dirname(text)} "
                         "does not exist; create it first")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputError(f"cannot write the output {text}: the folder "
                         f"{os.path.dirname(text) or '.'} is not writable")
    return target


def _remove_live():
    with _lock:
        for tmp in list(_live):
            with contextlib.suppress(OSError):
                os.remove(tmp)
        _live.clear()


def _on_signal(signum, frame):
    """Remove the temporary files, then do what the previous handler did."""
    previous = _installed.get(signum, signal.SIG_DFL)
    if previous is signal.SIG_DFL or previous is None:
        _remove_live()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)  # stop as the signal would have, status included
        return
    if previous is signal.default_int_handler:
        _remove_live()  # KeyboardInterrupt unwinds every atomic_path block anyway
    previous(signum, frame)  # a handler of the program's own: it decides what happens


def _install_handlers():
    for signum in (signal.SIGTERM, signal.SIGINT):
        current = signal.getsignal(signum)
        if current is _on_signal or current is signal.SIG_IGN:
            continue  # an ignored signal stays ignored: nothing stops the write
        _installed[signum] = current
        signal.signal(signum, _on_signal)


def _restore_handlers():
    for signum, previous in list(_installed.items()):
        if signal.getsignal(signum) is _on_signal:
            signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
        del _installed[signum]


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists (another user's process)
        return True
    return True


def sweep_stale(path):
    """Remove temporary files of ``path`` that an earlier, stopped process left behind.

    A temporary name holds the id of the process writing it: the file is removed when that
    process no longer runs (or when the id is this process's own and the file is not one it
    is writing).  A name without one (written by an earlier version) is removed
    once it is :data:`STALE_SECONDS` old.  Temporary files of running processes are kept.

    Parameters
    ----------
    path : str or path-like
        The target file.

    Returns
    -------
    list of str
        The removed files.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> left = os.path.join(folder, ".out.csv.tmp-999999999-ab12")
    >>> open(left, "w").close()
    >>> [os.path.basename(p) for p in sweep_stale(os.path.join(folder, "out.csv"))]
    ['.out.csv.tmp-999999999-ab12']
    """
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    prefix = f".{os.path.basename(target)}.tmp-"
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    now = time.time()
    for name in names:
        if not name.startswith(prefix):
            continue
        full = os.path.join(directory, name)
        pid_text, dash, _ = name[len(prefix):].partition("-")
        try:
            info = os.lstat(full)
        except OSError:
            continue
        if dash and pid_text.isdigit():
            # this process's own id: not one of its live files, so left by an earlier
            # process that had the same id (a container's commands often do)
            stale = int(pid_text) == os.getpid() or not _pid_alive(int(pid_text))
        else:
            stale = now - info.st_mtime > STALE_SECONDS
        with _lock:
            if stale and full not in _live and stat.S_ISREG(info.st_mode):
                with contextlib.suppress(OSError):
                    os.remove(full)
                    removed.append(full)
    return removed


def _create_temporary(target, suffix):
    """An empty new file beside ``target``, created with the mode the umask gives."""
    directory, base = os.path.split(target)
    while True:
        tmp = os.path.join(directory, f".{base}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
                                      f"{suffix}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return tmp


@contextlib.contextmanager
def atomic_path(path, suffix="", inputs=()):
    """Context manager: a temporary path beside ``path`` to write to; renamed onto ``path``
    when the block ends without an exception, removed otherwise.

    Parameters
    ----------
    path : str or path-like
        The target file (checked by :func:`check_output` before the block runs).
    suffix : str, default=""
        Suffix of the temporary name (writers that append an extension need it, e.g.
        ``".npz"`` for :func:`numpy.savez`).
    inputs : iterable of str or path-like, optional
        Files the writer reads: the target may not be one of them.

    Yields
    ------
    str
        The temporary path (in the target's directory, so the rename is atomic; its name
        holds ``.tmp-`` and the process id).

    Raises
    ------
    InputError
        The target is not a regular file, is one of ``inputs``, or its folder does not exist.

    Examples
    --------
    >>> import os, tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> with atomic_path(target) as tmp:
    ...     with open(tmp, "w") as fh:
    ...         _ = fh.write("done")
    >>> open(target).read()
    'done'
    >>> try:
    ...     with atomic_path(target) as tmp:
    ...         with open(tmp, "w") as fh:
    ...             _ = fh.write("half")
    ...         raise RuntimeError("interrupted")
    ... except RuntimeError:
    ...     pass
    >>> open(target).read(), sorted(os.listdir(os.path.dirname(target)))
    ('done', ['out.txt'])
    """
    global _main_depth
    target = check_output(path, inputs)
    sweep_stale(target)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    in_main = threading.current_thread() is threading.main_thread()
    with _lock:
        if in_main:
            if _main_depth == 0:
                with contextlib.suppress(ValueError):  # e.g. signals unavailable here
                    _install_handlers()
            _main_depth += 1
        tmp = _create_temporary(target, suffix)
        _live.add(tmp)
    try:
        if mode is not None:
            os.chmod(tmp, mode)
        yield tmp
        os.replace(tmp, target)
    finally:
        with _lock:
            _live.discard(tmp)
            if os.path.lexists(tmp):
                with contextlib.suppress(OSError):
                    os.remove(tmp)
            if in_main:
                _main_depth -= 1
                if _main_depth == 0:
                    _restore_handlers()


def atomic_write_text(path, text):
    """Write ``text`` to ``path`` through :func:`atomic_path`.

    Parameters
    ----------
    path : str or path-like
    text : str

    Examples
    --------
    >>> import os, tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "report.md")
    >>> atomic_write_text(target, "# Report\\n")
    >>> open(target).read()
    '# Report\\n'
    """
    with atomic_path(path) as tmp:
        with open(tmp, "w") as fh:
            fh.write(text)
