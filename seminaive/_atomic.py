"""Files written so that nothing is lost: a temporary file beside the target, renamed into
place only when it is complete.

Every file the library writes (model files, ``predict_stream`` outputs, experiment task
files and reports) goes through :func:`atomic_path`: on any failure, including an
interrupted write, the previous file at the target path is untouched and no partial or
temporary file remains.
"""

import contextlib
import os
import tempfile


@contextlib.contextmanager
def atomic_path(path, suffix=""):
    """Context manager: a temporary path beside ``path`` to write to; renamed onto ``path``
    when the block ends without an exception, removed otherwise.

    Parameters
    ----------
    path : str or path-like
        The target file.
    suffix : str, default=""
        Suffix of the temporary name (writers that append an extension need it, e.g.
        ``".npz"`` for :func:`numpy.savez`).

    Yields
    ------
    str
        The temporary path (in the target's directory, so the rename is atomic; its name
        holds ``.tmp-``).

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
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.tmp-", suffix=suffix,
                               dir=directory)
    os.close(fd)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


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
