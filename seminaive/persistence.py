"""Versioned, code-free model files: an ``.npz`` archive of arrays plus a JSON header.

Loading uses ``numpy.load(allow_pickle=False)`` and ``json``: no code from the file runs.
A corrupt, truncated or foreign file is refused with :class:`ModelFileError`.
"""

import json
import zipfile

import numpy as np

from .exceptions import ModelFileError

FORMAT_NAME = "seminaive-model"
FORMAT_VERSION = 1
_TABLE_ARRAYS = ("sizes", "counts", "meta", "n_rows")


def _classes_to_json(classes):
    values = [c.item() if isinstance(c, np.generic) else c for c in classes.tolist()]
    for v in values:
        if not isinstance(v, (str, int, float, bool)):
            raise TypeError(f"class label {v!r} cannot be stored in the model file: use "
                            "string or numeric labels, or pickle")
    return {"values": values, "dtype": classes.dtype.str if classes.dtype.kind != "O"
            else "object"}


def save_model(model, path):
    """Write a fitted estimator to ``path`` (conventionally ``*.npz``)."""
    from sklearn.utils.validation import check_is_fitted
    check_is_fitted(model, "table_")
    params = model.get_params()
    if not isinstance(params.get("discretizer"), str):
        params["discretizer"] = None
    header = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "estimator": type(model).__name__,
        "params": params,
        "classes": _classes_to_json(model.classes_),
        "encoder": model.encoder_.state(),
    }
    arrays = {f"table_{k}": v for k, v in model.table_.state().items()}
    arrays["header"] = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)


def load_model(path):
    """Read a model written by :func:`save_model`."""
    from .ande import ESTIMATORS
    from .preprocessing.encoder import AttributeEncoder
    from .tables import FrequencyTable

    try:
        with np.load(path, allow_pickle=False) as archive:
            if "header" not in archive.files:
                raise ModelFileError(f"{path} is not a seminaive model file (no header)")
            arrays = {name: archive[name] for name in archive.files}
    except ModelFileError:
        raise
    except FileNotFoundError:
        raise
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, KeyError) as err:
        raise ModelFileError(f"{path} is not a readable seminaive model file (corrupt, "
                             f"truncated or of another format): {err}") from err
    try:
        header = json.loads(arrays["header"].tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelFileError(f"{path}: the model header is corrupt: {err}") from err
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise ModelFileError(f"{path} is not a seminaive model file")
    if header.get("version") != FORMAT_VERSION:
        raise ModelFileError(f"{path} has model format version {header.get('version')}; this "
                             f"seminaive reads version {FORMAT_VERSION}: upgrade seminaive")
    cls = ESTIMATORS.get(header.get("estimator"))
    if cls is None:
        raise ModelFileError(f"{path} holds an unknown estimator {header.get('estimator')!r}")
    try:
        params = dict(header["params"])
        if params.get("discretizer") is None:
            params["discretizer"] = "mdl"
        model = cls(**params)
        cls_info = header["classes"]
        dtype = object if cls_info["dtype"] == "object" else np.dtype(cls_info["dtype"])
        model.classes_ = np.asarray(cls_info["values"], dtype=dtype)
        model.encoder_ = AttributeEncoder.from_state(header["encoder"])
        state = {k: arrays[f"table_{k}"] for k in _TABLE_ARRAYS}
        model.table_ = FrequencyTable.from_state(state, model.max_table_bytes)
        if not np.array_equal(model.table_.n_values, model.encoder_.n_values_) or \
                model.table_.n_classes != len(model.classes_):
            raise ValueError("tables and encoder disagree on the attributes or classes")
        if np.any(~np.isfinite(model.table_.counts)):
            raise ValueError("counts contain non-finite values")
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError) as err:
        raise ModelFileError(f"{path}: the model file is inconsistent: {err}") from err
    model._sync_feature_attrs()
    return model
