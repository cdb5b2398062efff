"""Read data sets from ARFF, CSV and Parquet files as ``(X, y)`` with the right column types.

Every reader returns ``X`` as a DataFrame whose nominal attributes are pandas Categoricals and
whose numeric attributes are float64 (missing values NaN), and ``y`` as a Series: the columns
seminaive's learners take directly (Categorical columns are nominal, float columns are
discretised).

ARFF is parsed by a small hand-written reader rather than ``scipy.io.arff.loadarff``:
scipy raises ``NotImplementedError`` on ``string`` attributes and returns nominal values as
bytes without the declared category order.  The reader follows Weka's format: ``%`` comments,
keywords in any case, names and values quoted with ``'`` or ``"`` (backslash escapes inside
quotes), ``?`` for missing.  Sparse rows (``{index value, ...}``) and relational attributes are
not supported and raise :class:`~seminaive.exceptions.InputError`.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import InputError

__all__ = ["read_arff", "read_csv", "read_parquet"]

_CSV_MISSING = ("?", "", "NA")
_NUMERIC_TYPES = {"numeric", "real", "integer"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "'": "'", '"': '"', "\\": "\\", "%": "%"}


# --------------------------------------------------------------------------- helpers


def _split_target(X, target, where):
    """Pop the target column (default: the last) from ``X``; NaN targets are an error."""
    if X.shape[1] == 0:
        raise InputError(f"{where} has no columns")
    if target is None:
        target = X.columns[-1]
    elif target not in X.columns:
        raise InputError(f"target {target!r} is not a column of {where}; columns are "
                         f"{list(X.columns)}")
    y = X.pop(target)
    missing = np.flatnonzero(y.isna().to_numpy())
    if missing.size:
        shown = ", ".join(str(i) for i in missing[:10])
        more = f" and {missing.size - 10} more" if missing.size > 10 else ""
        raise InputError(f"the target {target!r} of {where} is missing in data rows {shown}"
                         f"{more} (0-based); drop those rows or choose another target")
    return X, y


def _sorted_categories(values):
    """Distinct non-missing string values, numerically sorted if they all look like numbers."""
    distinct = pd.unique(values[pd.notna(values)])
    as_numbers = pd.to_numeric(pd.Series(distinct, dtype=object), errors="coerce")
    if len(distinct) and as_numbers.notna().all():
        order = np.argsort(as_numbers.to_numpy(dtype=np.float64), kind="stable")
        return [str(distinct[i]) for i in order]
    return sorted(str(v) for v in distinct)


def _as_nominal(column):
    """A column of strings (NaN = missing) as a Categorical with sorted categories."""
    present = column.notna().to_numpy()
    values = np.full(len(column), np.nan, dtype=object)
    values[present] = column.to_numpy(dtype=object)[present].astype(str).astype(object)
    return pd.Series(pd.Categorical(values, categories=_sorted_categories(values)),
                     index=column.index, name=column.name)


# ------------------------------------------------------------------------------ ARFF


class _Field:
    __slots__ = ("value", "quoted")

    def __init__(self, value, quoted):
        self.value = value
        self.quoted = quoted


def _split_fields(text, where):
    """Comma-separated fields of ``text``; quotes and escapes as Weka writes them.

    A ``%`` outside quotes starts a comment.  Returns a list of :class:`_Field`.
    """
    if "'" not in text and '"' not in text and "\\" not in text:
        text = text.split("%", 1)[0]
        if not text.strip():
            return []
        return [_Field(part.strip(), False) for part in text.split(",")]
    fields, buf, quoted, i, n = [], [], False, 0, len(text)
    started = False
    while i < n:
        c = text[i]
        if c in "'\"" and not "".join(buf).strip():
            quote, i, buf, quoted, started = c, i + 1, [], True, True
            while i < n and text[i] != quote:
                if text[i] == "\\" and i + 1 < n:
                    buf.append(_ESCAPES.get(text[i + 1], text[i + 1]))
                    i += 2
                else:
                    buf.append(text[i])
                    i += 1
            if i >= n:
                raise InputError(f"{where}: unterminated {quote} quote in {text.strip()!r}")
            i += 1  # closing quote; anything up to the next comma must be blank
            rest = re.match(r"\s*", text[i:]).end()
            i += rest
            if i < n and text[i] not in ",%":
                raise InputError(f"{where}: unexpected text after a quoted value in "
                                 f"{text.strip()!r}")
            continue
        if c == "%":
            break
        if c == ",":
            fields.append(_Field("".join(buf) if quoted else "".join(buf).strip(), quoted))
            buf, quoted, started = [], False, True
        else:
            buf.append(c)
            started = True
        i += 1
    if started or buf:
        fields.append(_Field("".join(buf) if quoted else "".join(buf).strip(), quoted))
    return fields


def _parse_attribute(rest, where):
    """Name and type of an ``@attribute`` line (text after the keyword)."""
    rest = rest.strip()
    if not rest:
        raise InputError(f"{where}: @attribute without a name")
    if rest[0] in "'\"":
        quote = rest[0]
        end = 1
        name_chars = []
        while end < len(rest) and rest[end] != quote:
            if rest[end] == "\\" and end + 1 < len(rest):
                name_chars.append(rest[end + 1])
                end += 2
            else:
                name_chars.append(rest[end])
                end += 1
        if end >= len(rest):
            raise InputError(f"{where}: unterminated quote in attribute name")
        name, type_text = "".join(name_chars), rest[end + 1:].strip()
    else:
        match = re.match(r"([^\s{]+)\s*(.*)$", rest, re.S)
        name, type_text = match.group(1), match.group(2).strip()
    if not type_text:
        raise InputError(f"{where}: attribute {name!r} has no type")
    if type_text.startswith("{"):
        close = type_text.rfind("}")
        if close < 0:
            raise InputError(f"{where}: nominal attribute {name!r} lacks a closing '}}'")
        values = [f.value for f in _split_fields(type_text[1:close], where)]
        if len(set(values)) != len(values):
            raise InputError(f"{where}: nominal attribute {name!r} declares a value twice")
        return name, "nominal", values
    kind = type_text.split(None, 1)[0].lower()
    if kind in _NUMERIC_TYPES:
        return name, "numeric", None
    if kind in ("string", "date"):
        return name, kind, None
    if kind == "relational":
        raise InputError(f"{where}: relational attribute {name!r} is not supported")
    raise InputError(f"{where}: unknown type {type_text!r} of attribute {name!r}")


def _open_text(path):
    path = Path(path)
    raw = gzip.open(path, "rb").read() if path.suffix == ".gz" else path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _arff_column(name, kind, declared, tokens, fields_missing, path):
    """Typed column from the raw tokens of one attribute."""
    if kind == "numeric":
        values = np.full(len(tokens), np.nan)
        present = ~fields_missing
        try:
            values[present] = np.asarray(tokens, dtype=object)[present].astype(np.float64)
        except ValueError:
            bad = next(t for t, m in zip(tokens, fields_missing, strict=True)
                       if not m and not _is_float(t))
            raise InputError(f"{path}: numeric attribute {name!r} has the value {bad!r}") \
                from None
        return pd.Series(values, name=name, dtype=np.float64)
    values = np.asarray(tokens, dtype=object)
    values[fields_missing] = np.nan
    if kind == "nominal":
        allowed = set(declared)
        present = values[~fields_missing]
        unknown = [v for v in pd.unique(present) if v not in allowed]
        if unknown:
            raise InputError(f"{path}: nominal attribute {name!r} has values {unknown[:5]} "
                             f"not among its declared values {declared[:20]}")
        return pd.Series(pd.Categorical(values, categories=declared), name=name)
    return pd.Series(values, name=name, dtype=object)  # string and date: text as written


def _is_float(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_arff(path, target=None):
    """Read a (dense) ARFF file.

    Parameters
    ----------
    path : str or Path
        ``.arff`` file (``.arff.gz`` is decompressed).
    target : str or False, optional
        Name of the class attribute; default the last attribute.  ``False``: no target,
        return every attribute as one frame (e.g. rows to predict, whose class may be ``?``).

    Returns
    -------
    X : DataFrame
        Nominal attributes as Categoricals with the declared categories in declared order,
        numeric (``numeric``/``real``/``integer``) as float64, ``string`` and ``date`` as
        object columns of the text; ``?`` is missing (NaN).
    y : Series
        The target column, named after its attribute (not returned with ``target=False``).

    Raises
    ------
    InputError
        Malformed file, sparse rows, values outside a nominal attribute's declaration, or a
        missing target value.

    Examples
    --------
    >>> import os, tempfile
    >>> from seminaive.datasets import read_arff
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.arff")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("@relation toy\\n@attribute colour {red,blue}\\n@attribute size numeric\\n"
    ...                  "@attribute class {yes,no}\\n@data\\nred,1.5,yes\\nblue,?,no\\n")
    >>> X, y = read_arff(path)
    >>> list(X.columns), y.tolist()
    (['colour', 'size'], ['yes', 'no'])
    """
    text = _open_text(path)
    attributes = []  # (name, kind, declared values)
    lines = text.splitlines()
    data_start = None
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        where = f"{path}, line {number}"
        keyword = stripped.split(None, 1)[0].lower()
        if keyword == "@relation":
            continue
        if keyword == "@attribute":
            rest = stripped[len("@attribute"):]
            attributes.append(_parse_attribute(_strip_comment(rest), where))
            continue
        if keyword == "@data":
            data_start = number
            break
        raise InputError(f"{where}: expected @relation, @attribute or @data, got "
                         f"{stripped[:60]!r}")
    if data_start is None:
        raise InputError(f"{path}: no @data section; is this an ARFF file?")
    if not attributes:
        raise InputError(f"{path}: no @attribute declarations")
    names = [a[0] for a in attributes]
    if len(set(names)) != len(names):
        duplicated = sorted({n for n in names if names.count(n) > 1})
        raise InputError(f"{path}: attribute names {duplicated} are declared twice")
    a = len(attributes)
    tokens = [[] for _ in range(a)]
    missing = [[] for _ in range(a)]
    for number in range(data_start, len(lines)):
        line = lines[number]
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        where = f"{path}, line {number + 1}"
        if stripped.startswith("{"):
            raise InputError(f"{where}: sparse ARFF not supported; convert the file to dense "
                             "ARFF (e.g. Weka's SparseToNonSparse filter) or CSV")
        fields = _split_fields(line, where)
        if not fields:
            continue
        if len(fields) == a + 1 and not fields[-1].quoted and fields[-1].value.startswith("{"):
            raise InputError(f"{where}: instance weights ({fields[-1].value}) are not supported")
        if len(fields) != a:
            raise InputError(f"{where}: {len(fields)} values but {a} attributes")
        for j, field in enumerate(fields):
            tokens[j].append(field.value)
            missing[j].append(field.value == "?" and not field.quoted)
    columns = [_arff_column(name, kind, declared, tokens[j], np.asarray(missing[j], dtype=bool),
                            path)
               for j, (name, kind, declared) in enumerate(attributes)]
    X = pd.DataFrame({column.name: column for column in columns})
    if target is False:
        return X
    return _split_target(X, target, str(path))


def _strip_comment(text):
    """``text`` up to a ``%`` that is outside quotes."""
    quote = None
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "%":
            return text[:i]
        i += 1
    return text


# ------------------------------------------------------------------------- CSV, Parquet


def _type_columns(frame, nominal, where):
    """Object/str columns: numeric-looking -> float64, otherwise (or in ``nominal``) nominal."""
    nominal = set(nominal or ())
    unknown = nominal - set(frame.columns)
    if unknown:
        raise InputError(f"nominal names columns {sorted(map(str, unknown))} that {where} "
                         f"does not have; columns are {list(frame.columns)}")
    out = {}
    for name in frame.columns:
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(
                column.dtype):
            out[name] = column
        elif name in nominal:
            out[name] = _as_nominal(column)
        elif pd.api.types.is_numeric_dtype(column.dtype):
            out[name] = column.astype(np.float64)
        else:
            numbers = pd.to_numeric(column, errors="coerce")
            if numbers[column.notna()].notna().all():
                out[name] = numbers.astype(np.float64)
            else:
                out[name] = _as_nominal(column)
    return pd.DataFrame(out, index=frame.index)


def read_csv(path, target=None, nominal=None, **kw):
    """Read a CSV file with a header row.

    Columns whose values all parse as numbers are numeric (float64); every other column is
    nominal (Categorical with sorted categories; numerically sorted when they look like
    numbers).  ``"?"``, ``""`` and ``"NA"`` are missing.

    Parameters
    ----------
    path : str or Path
        The CSV file.
    target : str, optional
        Name of the class column; default the last column.  Kept as a Categorical (the class
        is always nominal).
    nominal : list of str, optional
        Columns to read as nominal even if their values are numbers (codes 1, 2, 3...).
    **kw
        Passed to ``pandas.read_csv`` (``sep``, ``encoding``, extra ``na_values``...).

    Returns
    -------
    X : DataFrame
    y : Series

    Examples
    --------
    >>> import os, tempfile
    >>> from seminaive.datasets import read_csv
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.csv")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("colour,size,class\\nred,1.5,yes\\nblue,2.0,no\\n")
    >>> X, y = read_csv(path)
    >>> X.dtypes.astype(str).tolist(), y.tolist()
    (['category', 'float64'], ['yes', 'no'])
    """
    na_values = list(_CSV_MISSING) + list(kw.pop("na_values", []) or [])
    kw.setdefault("skipinitialspace", True)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=na_values, **kw)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot be read as CSV ({exc})") from exc
    frame.columns = [str(c) for c in frame.columns]
    target = frame.columns[-1] if target is None and frame.shape[1] else target
    nominal = list(nominal or [])
    if target is not None and target in frame.columns and target not in nominal:
        nominal.append(target)
    frame = _type_columns(frame, nominal, str(path))
    return _split_target(frame, target, str(path))


def read_parquet(path, target=None):
    """Read a Parquet file (pyarrow).

    Dictionary-encoded and string columns become Categoricals, numeric columns float64,
    boolean columns stay boolean.

    Parameters
    ----------
    path : str or Path
        The Parquet file.
    target : str, optional
        Name of the class column; default the last column.

    Returns
    -------
    X : DataFrame
    y : Series
        The target with its stored type (a Categorical if it was dictionary or string).

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from seminaive.datasets import read_parquet
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.parquet")
    >>> pd.DataFrame({"colour": ["red", "blue"], "size": [1.5, 2.0],
    ...               "class": ["yes", "no"]}).to_parquet(path)
    >>> X, y = read_parquet(path)
    >>> X.shape, y.tolist()
    ((2, 2), ['yes', 'no'])
    """
    try:
        frame = pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot be read as Parquet ({exc})") from exc
    frame.columns = [str(c) for c in frame.columns]
    target = frame.columns[-1] if target is None and frame.shape[1] else target
    if target is not None and target in frame.columns:
        y = frame[target]
        if not isinstance(y.dtype, pd.CategoricalDtype) and not pd.api.types.is_numeric_dtype(
                y.dtype) and not pd.api.types.is_bool_dtype(y.dtype):
            frame[target] = _as_nominal(y)
        typed = _type_columns(frame.drop(columns=[target]), None, str(path))
        typed[target] = frame[target]
        frame = typed
    else:
        frame = _type_columns(frame, None, str(path))
    return _split_target(frame, target, str(path))
