"""Versioned, code-free model files: an ``.npz`` archive of arrays plus a JSON header.

A model file is untrusted input.  Loading uses ``numpy.load(allow_pickle=False)`` only to
open the archive, and ``json``: no code from the file runs.  Only the members a model file
has are read, each stream-decompressed into an array of the size its ``.npy`` header
declares, after that size has been checked against the member's directory entry and a
limit (twice the model's ``max_table_bytes``).  Everything read is validated before it is
used (the numba kernels index the tables without bounds checks, so a file whose tables and
encoder disagree must never reach them), numbers for finiteness and range too, so that a
file that loads predicts finite probabilities.  A corrupt, truncated, tampered or foreign
file is refused with :class:`ModelFileError`.

Not storable in this format (use ``pickle`` / ``joblib`` for such models): a custom
scikit-learn discretiser, class labels or nominal values that are not strings, numbers or
booleans.  A ``random_state`` given as a ``RandomState`` instance is stored as ``None`` (it
only matters for refitting).
"""

import json
import math
import numbers
import os
import re
import stat
import struct
import zipfile

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._atomic import atomic_path
from .exceptions import ModelFileError, TableTooLargeError
from .preprocessing.encoder import MISSING_LABEL, AttributeEncoder
from .preprocessing.validation import MAX_TOTAL_WEIGHT
from .tables import FrequencyTable, estimate_table_bytes

FORMAT_NAME = "seminaive-model"
FORMAT_VERSION = 1
_TABLE_ARRAYS = ("sizes", "counts", "meta", "n_rows")
_CLASS_KINDS = "biufUO"

__all__ = ["ESTIMATORS", "load_model", "register", "save_model"]

#: the modules that define the public estimator classes; those of the learner families
#: are imported on first use (``import seminaive`` does not import them)
LEARNER_MODULES = ("seminaive.ande", "seminaive.structure", "seminaive.weighting",
                   "seminaive.selection")


class _Registry(dict):
    """Estimator classes by name, filled by :func:`register` as the classes are defined.

    A name that is not (yet) registered, and listing the names, first import the modules
    of :data:`LEARNER_MODULES`, so that a model file of a learner family that was not
    imported still loads."""

    def _import_all(self):
        import importlib

        for module in LEARNER_MODULES:
            importlib.import_module(module)

    def __missing__(self, name):
        self._import_all()
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        raise KeyError(name)

    def get(self, name, default=None):
        return self[name] if name in self else default

    def __contains__(self, name):
        if not dict.__contains__(self, name):
            self._import_all()
        return dict.__contains__(self, name)

    def __iter__(self):
        self._import_all()
        return dict.__iter__(self)

    def keys(self):
        self._import_all()
        return dict.keys(self)

    def items(self):
        self._import_all()
        return dict.items(self)

    def values(self):
        self._import_all()
        return dict.values(self)

    def __len__(self):
        self._import_all()
        return dict.__len__(self)


#: every public estimator class, by name: a model file names its class, and loading
#: instantiates it from here (filled by :func:`register` as the classes are defined; the
#: learner families are imported on first use, see :class:`_Registry`)
ESTIMATORS = _Registry()


def register(cls):
    """Make ``cls`` loadable from model files under its class name.

    Called by the estimator base for every public subclass when it is defined, so a new
    learner needs no registration of its own here.

    Parameters
    ----------
    cls : type
        An estimator class on the frequency-table engine.

    Returns
    -------
    cls
    """
    ESTIMATORS[cls.__name__] = cls
    return cls


def _jsonable(value, what):
    """``value`` with numpy scalars and tuples made JSON-native; refuse anything else."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_jsonable(v, what) for v in (value.tolist() if isinstance(value, np.ndarray)
                                             else value)]
    raise TypeError(f"{what} = {value!r} cannot be stored in the code-free model file: use "
                    "pickle / joblib for this model")


def _params_to_json(params, what):
    out = {}
    for key, value in params.items():
        if key == "random_state" and not (value is None or isinstance(value, numbers.Integral)):
            value = None  # a RandomState instance: only used when refitting
        out[key] = _jsonable(value, f"{what} parameter {key}")
    return out


def _classes_to_json(classes):
    values = [c.item() if isinstance(c, np.generic) else c for c in classes.tolist()]
    for v in values:
        if not isinstance(v, (str, int, float, bool)):
            raise TypeError(f"class label {v!r} cannot be stored in the model file: use "
                            "string or numeric labels, or pickle")
    return {"values": values, "dtype": classes.dtype.str if classes.dtype.kind != "O"
            else "object"}


def save_model(model, path):
    """Write a fitted estimator to ``path`` (conventionally ``*.npz``).

    Raises ``TypeError`` (before writing anything) for a model the format cannot hold, e.g.
    one with a custom scikit-learn discretiser: pickle such a model instead.  The file is
    written beside ``path`` and renamed into place.

    Parameters
    ----------
    model : fitted seminaive learner
        The model to store.
    path : str or path-like
        Destination file.

    Examples
    --------
    >>> import os, tempfile
    >>> from seminaive import AODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> from seminaive.persistence import load_model, save_model
    >>> X, y = load_kr_vs_kp()
    >>> model = AODE().fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "aode.npz")
    >>> save_model(model, path)
    >>> bool((load_model(path).predict_proba(X) == model.predict_proba(X)).all())
    True
    """
    check_is_fitted(model, "table_")
    if not isinstance(model.discretizer, str):
        raise TypeError(
            f"This model uses a custom scikit-learn discretizer "
            f"({type(model.discretizer).__name__}), which cannot be stored in the code-free "
            "model format: save it with pickle (or joblib) instead, or use "
            "discretizer='mdl' or 'equal_frequency'.")
    encoder_state = model.encoder_.state()
    encoder_state["params"] = _params_to_json(encoder_state["params"], "encoder")
    header = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "estimator": type(model).__name__,
        "params": _params_to_json(model.get_params(), type(model).__name__),
        "classes": _classes_to_json(model.classes_),
        "encoder": encoder_state,
    }
    arrays = {f"table_{k}": v for k, v in model.table_.state().items()}
    for name, value in model.learned_state().items():
        value = np.asarray(value)
        if value.dtype.kind not in "biuf":
            raise TypeError(f"learned array {name} has dtype {value.dtype}: only numeric "
                            "arrays can be stored")
        arrays[f"learned_{name}"] = value
    arrays["header"] = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    # write next to the target, then rename: an interrupted save leaves no truncated model
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)


#: the members a model file may hold: its header, the table's arrays, and learnt arrays
_TABLE_MEMBERS = frozenset({"sizes", "counts", "meta", "n_rows", "parents", "occupied",
                            "compact_counts", "moment_numeric", "moment_entries",
                            "moment_sums", "moment_meta", "moment_grid_edges",
                            "moment_grid_bins", "moment_bins"})
_LEARNED_NAME = re.compile(r"learned_[A-Za-z0-9_]{1,100}")
#: the JSON header is at most this long (the encoder's categories make most of it)
MAX_HEADER_BYTES = 64 << 20
#: members per file (a model holds a few dozen)
_MAX_MEMBERS = 4096
#: how deep the JSON header may nest (a model's header nests four levels)
_MAX_DEPTH = 32
_ARRAY_KINDS = "biuf"
#: bytes decompressed at a time
_PIECE = 4 << 20


def _member_name(info, path):
    """The array name of a zip member, refusing every member a model file does not hold."""
    name = info.filename
    base = name[:-4] if name.endswith(".npy") else None
    if base is None or not (base == "header" or (base.startswith("table_")
                                                 and base[6:] in _TABLE_MEMBERS)
                            or _LEARNED_NAME.fullmatch(base)):
        raise ModelFileError(f"{path} holds a member {name[:80]!r} that no seminaive model "
                             "file has: refused (the file was altered or is of another kind)")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise ModelFileError(f"{path}: member {name} uses compression method "
                             f"{info.compress_type}; model files use deflate or none")
    if info.flag_bits & 0x1:
        raise ModelFileError(f"{path}: member {name} is encrypted")
    return base


def _read_member(archive, info, path, limit):
    """One array, with its declared size checked against the directory's uncompressed size
    and against ``limit`` before anything is decompressed: the member is then
    stream-decompressed into an array of exactly that size, never beyond it."""
    name = info.filename
    with archive.open(info) as fh:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
        else:
            raise ModelFileError(f"{path}: member {name} has array format {version}")
        if (dtype.kind not in _ARRAY_KINDS or dtype.hasobject or dtype.fields is not None
                or dtype.subdtype is not None or dtype.itemsize > 8):
            raise ModelFileError(f"{path}: member {name} has dtype {dtype}; model files hold "
                                 "plain numeric arrays only")
        if len(shape) > 8 or any(not isinstance(d, int) or d < 0 for d in shape):
            raise ModelFileError(f"{path}: member {name} has a bad shape {shape!r}")
        n_items = math.prod(shape)
        n_bytes = n_items * dtype.itemsize
        if n_bytes > limit:
            raise ModelFileError(
                f"{path}: member {name} declares {n_bytes:,} bytes ({shape}, {dtype}), more "
                f"than the {limit:,} bytes a model file may hold here; raise the model's "
                "max_table_bytes (or pass max_bytes to load_model) if the file is trusted")
        if info.file_size != fh.tell() + n_bytes:
            raise ModelFileError(
                f"{path}: member {name} is {info.file_size:,} bytes long, but its header "
                f"declares {fh.tell() + n_bytes:,} (the file was altered or is corrupt)")
        flat = np.empty(n_items, dtype=dtype)
        view = flat.view(np.uint8)
        filled = 0
        while filled < n_bytes:  # in pieces: the zip reader holds each piece once more
            piece = fh.read(min(_PIECE, n_bytes - filled))
            if not piece:
                raise ModelFileError(f"{path}: member {name} is truncated")
            view[filled:filled + len(piece)] = np.frombuffer(piece, dtype=np.uint8)
            filled += len(piece)
        if fh.read(1):  # also makes the zip reader check the member's CRC
            raise ModelFileError(f"{path}: member {name} is longer than its header declares")
    return flat.reshape(shape, order="F" if fortran else "C")


#: the learners' default max_table_bytes: the budget of a header that names none
DEFAULT_LIMIT = 4 << 30
#: the most a file may declare unless the caller allows more (``max_bytes``): the header is
#: part of the untrusted file, so its max_table_bytes (None, or 2**60) cannot lift this
CEILING = 2 * DEFAULT_LIMIT + (1 << 20)


def _declared_limit(header, max_bytes):
    """The most bytes of arrays the file may declare: ``max_bytes`` if given, else twice
    the model's own ``max_table_bytes`` (the tables, and what is learnt beyond them, each
    within it) plus 1 MiB, and never more than ``CEILING``."""
    if max_bytes is not None:
        return int(max_bytes)
    params = header.get("params")
    budget = params.get("max_table_bytes", DEFAULT_LIMIT) if isinstance(params, dict) \
        else DEFAULT_LIMIT
    if budget is None:
        return CEILING
    if isinstance(budget, bool) or not isinstance(budget, int | float) or not budget >= 0:
        raise ModelFileError(f"the header's max_table_bytes is {budget!r}, not a number of "
                             "bytes")
    return min(2 * int(min(budget, 2**61)) + (1 << 20), CEILING)


def _read_arrays(path, max_bytes=None):
    """The header (parsed and checked) and every array of the archive, each member checked
    against the whitelist and its declared size before it is decompressed; any failure to
    read them is a ModelFileError."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise ModelFileError(f"a model file is read from a path, not a {type(path).__name__}")
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None  # (np.load gives the error of a missing or unreadable path)
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        # a FIFO or a device: the archive is read more than once, so it would hang
        raise ModelFileError(f"{os.fspath(path)} is not a regular file (a FIFO, a device or a "
                             "socket): copy the model to a file and load that")
    try:
        archive = np.load(path, allow_pickle=False)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except Exception as err:  # not an npz / npy file at all, or an unreadable one
        # numpy's message for non-npz data suggests unpickling it: never relay that advice
        detail = "not an .npz archive" if "pickle" in str(err) else str(err)
        raise ModelFileError(f"{path} is not a readable seminaive model file (corrupt, "
                             f"truncated or of another format): {detail}") from err
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ModelFileError(f"{path} is a single .npy array, not a seminaive model file")
    try:
        with archive:
            zf = archive.zip
            infos = zf.infolist()
            if len(infos) > _MAX_MEMBERS:
                raise ModelFileError(f"{path} holds {len(infos)} members, more than a model "
                                     "file has")
            if "header.npy" not in (info.filename for info in infos):
                raise ModelFileError(f"{path} is not a seminaive model file (an .npz archive "
                                     "without a seminaive header)")
            names = [_member_name(info, path) for info in infos]
            if len(set(names)) != len(names):
                raise ModelFileError(f"{path} holds a member twice")
            _check_local_headers(zf)
            members = dict(zip(names, infos, strict=True))
            raw = _read_member(zf, members.pop("header"), path, MAX_HEADER_BYTES)
            header = _read_header(path, raw)
            left = _declared_limit(header, max_bytes)
            arrays = {}
            for name, info in sorted(members.items(), key=lambda item: item[1].file_size):
                arrays[name] = _read_member(zf, info, path, left)
                left -= arrays[name].nbytes
            return header, arrays
    except ModelFileError:
        raise
    except Exception as err:  # bad CRC, zlib errors, truncated members, bad array headers
        raise ModelFileError(f"{path} is corrupt or truncated (reading its arrays failed): "
                             f"{type(err).__name__}: {err}") from err


def _check_local_headers(archive):
    """Every member's local header agrees with the archive's directory (signature, name,
    compression and, unless deferred to a data descriptor, CRC): Python's zip reader trusts
    the directory and would otherwise read past a damaged local header."""
    handle = archive.fp
    for info in archive.infolist():
        handle.seek(info.header_offset)
        raw = handle.read(30)
        if len(raw) != 30:
            raise zipfile.BadZipFile(f"member {info.filename}: truncated local header")
        (signature, _, flags, method, _, _, crc, _, _, name_len, _) = struct.unpack(
            "<4sHHHHHIIIHH", raw)
        name = handle.read(name_len)
        if signature != b"PK\x03\x04" or method != info.compress_type:
            raise zipfile.BadZipFile(f"member {info.filename}: damaged local header")
        if name.decode("utf-8", "replace") != info.filename:
            raise zipfile.BadZipFile(f"member {info.filename}: local header names {name!r}")
        if not flags & 0x08 and crc != info.CRC:
            raise zipfile.BadZipFile(f"member {info.filename}: local header CRC differs")


def _read_header(path, raw):
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise ModelFileError(f"{path}: the model header is not a byte string")
    try:
        header = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        # ValueError: bad JSON, or an integer of more digits than Python converts;
        # RecursionError: nesting deeper than the parser goes
        raise ModelFileError(f"{path}: the model header is corrupt: "
                             f"{type(err).__name__}: {str(err)[:200]}") from None
    _check_json_tree(header, path)
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        found = header.get("format") if isinstance(header, dict) else None
        raise ModelFileError(f"{path} is not a seminaive model file (format {found!r}, "
                             f"expected {FORMAT_NAME!r})")
    version = header.get("version")
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise ModelFileError(f"{path} has model format version {version!r}; this seminaive "
                             f"reads version {FORMAT_VERSION}: use the seminaive version that "
                             "wrote it, or refit and save the model again")
    for key, kind in (("estimator", str), ("params", dict), ("classes", dict),
                      ("encoder", dict)):
        if not isinstance(header.get(key), kind):
            raise ModelFileError(f"{path}: the header's {key!r} entry is "
                                 f"{type(header.get(key)).__name__}, not {kind.__name__}")
    return header


def _check_json_tree(value, path):
    """Refuse a header nested deeper than a model's, with integers beyond int64 or
    non-finite numbers (walked without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            if isinstance(item, int) and not isinstance(item, bool) and not (
                    -2**63 <= item < 2**63):
                raise ModelFileError(f"{path}: the model header holds an integer of "
                                     f"{item.bit_length()} bits, beyond int64")
            if isinstance(item, float) and not math.isfinite(item):
                raise ModelFileError(f"{path}: the model header holds {item}")
            continue
        if depth >= _MAX_DEPTH:
            raise ModelFileError(f"{path}: the model header nests deeper than "
                                 f"{_MAX_DEPTH} levels")
        stack.extend((child, depth + 1) for child in children)


def _expect(condition, message):
    if not condition:
        raise ValueError(message)


def _int_list(values, what):
    _expect(isinstance(values, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in values), f"{what} is not a "
        "list of integers")
    return values


def _validate_encoder(enc):
    """Every code the encoder can produce must lie inside the table it feeds."""
    a = enc.n_features_in_
    _expect(a >= 1, "the encoder has no attributes")
    _expect(len(enc.column_names_) == a and enc.nominal_.shape == (a,)
            and len(enc.categories_) == a and enc.missing_code_.shape == (a,),
            "the encoder's per-attribute lists have inconsistent lengths")
    if hasattr(enc, "feature_names_in_"):
        _expect(all(isinstance(c, str) for c in enc.column_names_),
                "feature names are not strings")
    for col in range(a):
        cats = enc.categories_[col]
        miss = int(enc.missing_code_[col])
        _expect(-1 <= miss < len(cats), f"attribute {col}: missing-value code out of range")
        if miss >= 0:
            _expect(cats[miss] == MISSING_LABEL, f"attribute {col}: bad missing-value code")
        values = [c for i, c in enumerate(cats) if i != miss]
        _expect(all(c is None or isinstance(c, (str, int, float, bool)) for c in values),
                f"attribute {col}: categories are not scalars")
        if enc.nominal_[col]:
            keys = [(type(c).__name__ if isinstance(c, bool) else "", c) for c in values]
            _expect(len(set(keys)) == len(keys), f"attribute {col}: duplicate categories")
    numeric = enc.numeric_columns_
    if numeric.size:
        cuts = enc.discretizer_.cut_points_
        _expect(len(cuts) == numeric.size, "cut points do not match the numeric attributes")
        for j, col in enumerate(numeric):
            c = cuts[j]
            _expect(c.ndim == 1 and np.all(np.isfinite(c)) and np.all(np.diff(c) > 0),
                    f"attribute {col}: cut points are not finite and increasing")
            n_bins = len(enc.categories_[col]) - (enc.missing_code_[col] >= 0)
            _expect(n_bins == c.size + 1, f"attribute {col}: {n_bins} bin labels for "
                    f"{c.size} cut points")


def _count_cells(sizes, n_classes, max_order):
    """Exact number of count cells of a table (elementary symmetric polynomials)."""
    elem = [1] + [0] * max_order
    for s in sizes:
        for d in range(max_order, 0, -1):
            elem[d] += elem[d - 1] * int(s)
    return n_classes * sum(elem)


def _validate_table_arrays(state, model, classes, encoder):
    sizes, meta, counts, n_rows = (state[k] for k in ("sizes", "meta", "counts", "n_rows"))
    _expect(sizes.ndim == 1 and sizes.dtype.kind in "iu", "table sizes are not integers")
    _expect(np.array_equal(sizes - 1, encoder.n_values_),
            "the tables and the encoder disagree on the attributes' numbers of values")
    _expect(meta.shape == (2,) and meta.dtype.kind in "iu", "bad table metadata")
    n_classes, max_order = (int(v) for v in meta)
    _expect(n_classes == len(classes), "the tables and classes_ disagree on the "
            "number of classes")
    spec = model.table_spec(encoder)
    _expect(max_order in {min(order, sizes.size)
                          for order in spec.get("orders", (spec["order"],))},
            "the tables' order does not match the estimator's n")
    _expect(counts.ndim == 1 and counts.dtype == np.float64, "counts are not float64")
    parents = state.get("parents")
    occupied = state.get("occupied")
    _expect((occupied is None) == ("compact_counts" not in state)
            and (occupied is None or parents is not None),
            "a compact table needs its parents, stored cells and compact counts together")
    if parents is None:
        cells = _count_cells(sizes, n_classes, max_order)
    else:
        _expect(getattr(model, "memory", "refuse") in ("select", "select_dense"),
                "a selective table (parents) needs memory='select'")
        _expect(parents.ndim == 1 and parents.dtype.kind in "iu"
                and bool(np.all(np.diff(parents) > 0)) and parents.size < sizes.size
                and (parents.size == 0 or (parents[0] >= 0 and parents[-1] < sizes.size)),
                "bad parent attributes of the selective table")
        _expect(max_order >= 1 and parents.size >= max_order - 1,
                "the selective table has fewer parents than its order needs")
        cells = estimate_table_bytes(sizes - 1, n_classes, max_order,
                                     parents=parents)["counts"] // 8
    if occupied is not None:
        _expect(getattr(model, "memory", "refuse") == "select",
                "a compact selective table needs memory='select'")
        _expect(occupied.ndim == 1 and occupied.dtype == np.bool_,
                "the stored cells of the compact table are not booleans")
        compact = state["compact_counts"]
        _expect(compact.ndim == 1 and compact.dtype == np.float64
                and compact.size == int(occupied.sum()) * n_classes * int(sizes.sum()),
                "the compact count array does not have the size of its stored cells")
        _expect(bool(np.all(np.isfinite(compact))), "counts contain non-finite values")
        _expect(not np.any(compact < -1e-6 * max(1.0, float(n_rows[0]))),
                "counts contain negative values")
        # the counts of orders <= n only (the order n + 1 children are the compact counts)
        cells = _count_cells(sizes, n_classes, max_order - 1)
    _expect(counts.size == cells, "the count array does not have the size of the table layout")
    _expect(bool(np.all(np.isfinite(counts))), "counts contain non-finite values")
    _expect(n_rows.shape == (1,) and n_rows.dtype.kind == "f" and np.isfinite(n_rows[0])
            and 0 <= n_rows[0] <= MAX_TOTAL_WEIGHT, "bad number of rows (the total weight "
            "must lie in [0, 2**53])")
    _expect(not np.any(counts < -1e-6 * max(1.0, float(n_rows[0]))),
            "counts contain negative values")
    # every count is a sum of some rows' weights: none exceeds the total
    ceiling = float(n_rows[0]) * (1 + 1e-9) + 1e-6
    _expect(not np.any(counts > ceiling) and (occupied is None or not np.any(
        state["compact_counts"] > ceiling)), "counts exceed the number of rows")
    for key in ("moment_sums",):
        if key in state:
            sums = state[key]
            _expect(sums.dtype.kind == "f" and bool(np.all(np.abs(sums) <= _MOMENT_BOUND)),
                    f"the Gaussian moments are not finite numbers within +-{_MOMENT_BOUND:g}")


#: the largest magnitude of a learnt number (weights, coefficients, scores): far above
#: any a fit produces, and small enough that sums and products of them over the
#: attributes stay finite
_LEARNED_BOUND = 1e100
#: the largest magnitude of a Gaussian moment sum (its square stays finite)
_MOMENT_BOUND = 1e150


def _validate_learned(learned):
    """Learnt arrays are numbers within +-``_LEARNED_BOUND``: NaN only in the diagnostic
    leave-one-out losses (entries never evaluated), -inf only in log weights."""
    for name, value in learned.items():
        _expect(value.dtype.kind in _ARRAY_KINDS, f"learned array {name} is not numeric")
        if value.dtype.kind != "f" or value.size == 0:
            continue
        v = value[~np.isnan(value)] if name.endswith("loo_loss") else value
        if name.startswith("log_") or "_log_" in name:
            v = v[v != -np.inf]
        _expect(bool(np.all(np.abs(v) <= _LEARNED_BOUND)),
                f"learned array {name} holds values that are not finite numbers within "
                f"+-{_LEARNED_BOUND:g}")


def load_model(path, max_bytes=None):
    """Read a model written by :func:`~seminaive.persistence.save_model`; refuse anything
    else with ModelFileError.

    A model file is untrusted input.  Loading reads arrays and JSON only (no code from the
    file runs); it accepts only the members a model file has, checks each member's size
    against the shape and dtype its header declares and against a limit before
    decompressing it (so memory stays within the declared size), and validates every array
    against the layout, and every number for finiteness and range, before any kernel sees
    it: a file that loads predicts finite probabilities.

    Parameters
    ----------
    path : str or path-like
        A model file.
    max_bytes : int, optional
        The most bytes of arrays the file may declare (its header aside, which may take
        64 MiB).  By default twice the model's own ``max_table_bytes`` (from the file's
        header; 4 GiB for the learners' default) plus 1 MiB, and at most 8 GiB + 1 MiB
        whatever the header says (the header is part of the untrusted file): pass a larger
        ``max_bytes`` to load a larger model from a source you trust.

    Returns
    -------
    estimator
        The fitted learner, of the class named in the file.

    Examples
    --------
    >>> import os, tempfile
    >>> from seminaive.exceptions import ModelFileError
    >>> from seminaive.persistence import load_model
    >>> path = os.path.join(tempfile.mkdtemp(), "not-a-model.npz")
    >>> with open(path, "wb") as fh:
    ...     _ = fh.write(b"garbage")
    >>> try:
    ...     load_model(path)
    ... except ModelFileError:
    ...     print("refused")
    refused
    """
    header, arrays = _read_arrays(path, max_bytes)
    cls = ESTIMATORS.get(header["estimator"])
    if cls is None:
        raise ModelFileError(f"{path} holds an unknown estimator {header['estimator'][:80]!r}")
    try:
        params = header["params"]
        _expect(isinstance(params, dict), "the parameters are not a mapping")
        model = cls(**cls.params_from_file(params))
        model.check_params()
        cls_info = header["classes"]
        dtype = object if cls_info["dtype"] == "object" else np.dtype(cls_info["dtype"])
        _expect(np.dtype(dtype).kind in _CLASS_KINDS, f"unsupported class dtype {dtype}")
        _expect(isinstance(cls_info["values"], list) and len(cls_info["values"]) >= 1,
                "no classes")
        if np.dtype(dtype).kind == "U":  # as wide as the longest label, as saved
            longest = max((len(v) for v in cls_info["values"] if isinstance(v, str)),
                          default=0)
            _expect(np.dtype(dtype).itemsize <= 4 * max(longest, 1),
                    f"the class dtype {dtype} is wider than the longest class label")
        classes = np.asarray(cls_info["values"], dtype=dtype)
        _expect(classes.ndim == 1 and np.array_equal(np.unique(classes), classes),
                "classes are not sorted and unique")
        enc_state = dict(header["encoder"])
        _int_list(enc_state["missing_code"], "missing_code")
        _expect(isinstance(enc_state.get("nominal"), list)
                and all(isinstance(v, bool) for v in enc_state["nominal"]),
                "the encoder's nominal flags are not a list of true/false values")
        encoder = AttributeEncoder.from_state(enc_state)
        _validate_encoder(encoder)
        table_state = {k[len("table_"):]: v for k, v in arrays.items()
                       if k.startswith("table_")}
        missing = [k for k in _TABLE_ARRAYS if k not in table_state]
        _expect(not missing, f"table arrays {missing} are missing")
        _validate_table_arrays(table_state, model, classes, encoder)
        try:
            table = FrequencyTable.from_state(
                table_state, model.max_table_bytes,
                counts_only=getattr(model, "_table_counts_only", False))
        except TableTooLargeError as err:
            # the file's own budget refuses the tables it holds: no fit could have written
            # them (fit and partial_fit refuse the same estimate), so the header is damaged
            raise ModelFileError(
                f"{path}: the model's max_table_bytes={model.max_table_bytes!r} is smaller "
                f"than the tables the file holds ({err}); the file is damaged or was "
                "edited: fit the model again") from err
        spec = model.table_spec(encoder)
        moments = table.moments
        _expect(np.array_equal(spec["moment_numeric"],
                               np.empty(0) if moments is None else moments.numeric)
                and (moments is None or table.moment_parents == min(
                    spec["moment_order"], table.max_order)),
                "the moments of the Gaussian attributes do not match numeric= and the "
                "numeric columns")
        learned = {k[len("learned_"):]: v for k, v in arrays.items()
                   if k.startswith("learned_")}
        _validate_learned(learned)
        model.restore_fit(classes, encoder, table, learned)
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError,
            ZeroDivisionError, FloatingPointError, RecursionError) as err:
        raise ModelFileError(f"{path}: the model file is inconsistent or corrupt: "
                             f"{type(err).__name__}: {err}") from err
    return model
