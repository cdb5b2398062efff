"""Arrays that numba types as Fortran-ordered matrices, so that a kernel compiles once.

Every fit passes a kernel Fortran-ordered code matrices.  An array of one row or one column
is C- and F-contiguous at once and numba types it C, and a strided slice is typed ``A``: a
one-row predict, a small ``partial_fit`` chunk or a one-attribute table would each compile
a second specialisation of the kernel (seconds each).  Such an array is copied into
:func:`padded_fortran`'s array instead, whose extra rows and columns are zeros.
"""

import numpy as np


def typed_fortran(A):
    """Whether numba types ``A`` as a Fortran-ordered array (an array of one row or one
    column is both C- and F-contiguous, and numba types it C)."""
    return A.flags.f_contiguous and not A.flags.c_contiguous


def padded_fortran(A, min_rows=2, min_cols=2):
    """The 2-D array ``A`` copied into the top-left corner of a Fortran-ordered array of
    zeros of at least ``min_rows`` rows and ``min_cols`` columns (same dtype, writable).

    Parameters
    ----------
    A : ndarray of shape (n_rows, n_cols)
        The array to copy.
    min_rows, min_cols : int, default=2
        The least shape of the copy: with two rows and two columns, numba types it F.

    Returns
    -------
    ndarray of shape (max(n_rows, min_rows), max(n_cols, min_cols))
        ``out[:n_rows, :n_cols] == A``, zeros elsewhere.

    Examples
    --------
    >>> out = padded_fortran(np.array([[3, 4, 5]]))
    >>> out.tolist(), out.flags.f_contiguous, out.flags.c_contiguous
    ([[3, 4, 5], [0, 0, 0]], True, False)
    """
    n, a = A.shape
    out = np.zeros((max(n, min_rows), max(a, min_cols)), dtype=A.dtype, order="F")
    out[:n, :a] = A
    return out
