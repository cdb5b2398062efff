"""Model files as untrusted input: tampered numbers, malformed headers, foreign members,
decompression bombs and a fuzz of byte flips, truncations and member swaps.  A file either
loads and predicts finite probabilities, or is refused with ModelFileError; loading never
takes more memory than a small multiple of what the file declares."""

import io
import json
import os
import subprocess
import sys
import textwrap
import tracemalloc
import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import seminaive
from seminaive import AODE, ModelFileError
from seminaive.persistence import ESTIMATORS, load_model


def _data(n=160, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n),
                      "c": rng.normal(size=n), "d": rng.choice(list("uvw"), n)})
    y = np.where((X["a"] == "x") ^ (X["c"] > 0), "A", "B")
    return X, y


@pytest.fixture(scope="module")
def data():
    return _data()


@pytest.fixture(scope="module")
def saved(tmp_path_factory, data):
    """name -> path of a saved model of every learner named in the cases below."""
    X, y = data
    folder = tmp_path_factory.mktemp("models")
    out = {}
    for name in ("AODE", "WANBIAC", "ALR", "SelectiveAnDE", "KDB", "BMAAODE"):
        model = ESTIMATORS[name]()
        if "random_state" in model.get_params():
            model.set_params(random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
        out[name] = folder / f"{name}.npz"
        model.save(out[name])
    gaussian = folder / "gaussian.npz"
    AODE(numeric="gaussian").fit(X, y).save(gaussian)
    out["gaussian"] = gaussian
    return out


def _members(path):
    with zipfile.ZipFile(path) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist()}


def _write(path, members, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, raw in members.items():
            zf.writestr(name, raw)
    return path


def _npy(array):
    buf = io.BytesIO()
    np.save(buf, np.asarray(array), allow_pickle=False)
    return buf.getvalue()


def _arrays(path):
    with np.load(path, allow_pickle=False) as archive:
        return {k: archive[k] for k in archive.files}


def _rewrite(src, dst, header_update=None, replace=None, raw_header=None):
    arrays = _arrays(src)
    if header_update is not None:
        header = json.loads(arrays["header"].tobytes())
        header_update(header)
        arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    if raw_header is not None:
        arrays["header"] = np.frombuffer(raw_header, dtype=np.uint8)
    arrays.update(replace or {})
    np.savez_compressed(dst, **arrays)
    return dst


def _loads_and_predicts_finite(path, X):
    """True if the file loads and predicts finite probabilities; False if refused with
    ModelFileError; anything else propagates (a test failure)."""
    try:
        model = load_model(path)
    except ModelFileError:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proba = model.predict_proba(X)
    assert np.all(np.isfinite(proba)), path
    assert np.allclose(proba.sum(axis=1), 1.0)
    return True


# --------------------------------------------------------------- tampered numbers
@pytest.mark.parametrize("name, array, value", [
    ("AODE", "table_counts", 1e308),
    ("AODE", "table_counts", 1e20),
    ("AODE", "table_n_rows", 1e308),
    ("AODE", "table_n_rows", np.inf),
    ("WANBIAC", "learned_coef", 1e308),
    ("WANBIAC", "learned_coef", -1e308),
    ("WANBIAC", "learned_coef", np.nan),
    ("SelectiveAnDE", "learned_parent_weights", 1e300),
    ("ALR", "learned_fit_info", np.inf),
    ("ALR", "learned_fit_info", -np.inf),
    ("WANBIAC", "learned_fit_info", np.inf),
    ("WANBIAC", "learned_fit_info", -np.inf),
    ("BMAAODE", "learned_log_weights", np.nan),
    ("gaussian", "table_moment_sums", 1e308),
])
def test_tampered_numbers_are_refused(saved, tmp_path, name, array, value):
    original = _arrays(saved[name])[array]
    tampered = np.full_like(original, value)
    bad = _rewrite(saved[name], tmp_path / "bad.npz", replace={array: tampered})
    with pytest.raises(ModelFileError, match="inconsistent or corrupt"):
        load_model(bad)


@pytest.mark.parametrize("name, array", [
    ("WANBIAC", "learned_coef"), ("SelectiveAnDE", "learned_parent_weights"),
    ("ALR", "learned_coef"), ("BMAAODE", "learned_log_weights"),
])
@pytest.mark.parametrize("value", [1e100, -1e100, 0.0, 1e-300])
def test_numbers_at_the_bounds_load_and_predict_finite(saved, tmp_path, data, name, array,
                                                       value):
    original = _arrays(saved[name])[array]
    path = _rewrite(saved[name], tmp_path / "edge.npz",
                    replace={array: np.full_like(original, value)})
    # loads and predicts finite, or is refused by the learner's own check: never NaN
    _loads_and_predicts_finite(path, data[0])


def test_counts_equal_to_the_rows_load(saved, tmp_path, data):
    arrays = _arrays(saved["AODE"])
    counts = np.full_like(arrays["table_counts"], arrays["table_n_rows"][0])
    path = _rewrite(saved["AODE"], tmp_path / "full.npz", replace={"table_counts": counts})
    assert _loads_and_predicts_finite(path, data[0])
    over = counts * 1.01
    path = _rewrite(saved["AODE"], tmp_path / "over.npz", replace={"table_counts": over})
    with pytest.raises(ModelFileError, match="exceed the number of rows"):
        load_model(path)


# --------------------------------------------------------------- malformed headers
@pytest.mark.parametrize("damage, match", [
    (lambda h: h.update(estimator=["AODE"]), "'estimator' entry is list"),
    (lambda h: h.update(estimator={"a": 1}), "'estimator' entry is dict"),
    (lambda h: h.update(params=[1, 2]), "'params' entry is list"),
    (lambda h: h.update(encoder="x"), "'encoder' entry is str"),
    (lambda h: h.update(classes=None), "'classes' entry is NoneType"),
    (lambda h: h["params"].update(max_table_bytes="lots"), "max_table_bytes"),
    (lambda h: h["params"].update(m=10**40), "integer of 133 bits"),
    (lambda h: h["classes"].update(dtype="<U100000000"), "wider than the longest"),
    (lambda h: h["params"].update(m=float("inf")), "holds inf"),
    (lambda h: h["params"].update(m=float("nan")), "holds nan"),
    (lambda h: h["params"].update(max_iter=[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]
                                                   ]]]]]]]]]]]]]]),
     "nests deeper"),
])
def test_malformed_headers_are_refused(saved, tmp_path, damage, match):
    bad = _rewrite(saved["AODE"], tmp_path / "bad.npz", damage)
    with pytest.raises(ModelFileError, match=match):
        load_model(bad)


@pytest.mark.parametrize("raw", [
    b"[" * 100_000 + b"]" * 100_000,
    b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    b'{"format": "seminaive-model", "version": ' + b"7" * 5000 + b"}",
    b'{"format": "seminaive-model", "version": 1, "x": ' + b"9" * 4000 + b"}",
    b"\xff\xfe not utf-8",
    b"",
    b"null",
    b"[1, 2]",
])
def test_hostile_header_text_is_refused(saved, tmp_path, raw):
    bad = _rewrite(saved["AODE"], tmp_path / "bad.npz", raw_header=raw)
    with pytest.raises(ModelFileError):
        load_model(bad)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                               max_size=4),
    max_leaves=12)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(["estimator", "params", "classes", "encoder", "classes.values",
                              "classes.dtype", "encoder.categories", "encoder.cut_points",
                              "encoder.missing_code", "encoder.nominal", "params.n",
                              "params.m", "params.max_table_bytes", "version"]),
       value=_JSON)
def test_any_json_value_anywhere_in_the_header(saved, tmp_path, data, where, value):
    keys = where.split(".")

    def damage(header):
        target = header
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    try:
        bad = _rewrite(saved["AODE"], tmp_path / "h.npz", damage)
    except ValueError:  # json cannot write it (e.g. NaN is fine, but circular is not)
        return
    _loads_and_predicts_finite(bad, data[0])


@pytest.mark.parametrize("flags", [[True, None, True, True], [1, 0, 1, 1], "yes"])
def test_nominal_flags_that_are_not_booleans_are_refused(saved, tmp_path, flags):
    """A column's nominal flag decides how its values are read: anything but a list of
    true/false values is a damaged file, refused at load (not at the first predict)."""
    def damage(header):
        header["encoder"]["nominal"] = flags

    bad = _rewrite(saved["AODE"], tmp_path / "flags.npz", damage)
    with pytest.raises(ModelFileError, match="nominal"):
        load_model(bad)


@pytest.mark.parametrize("budget", [1, True, 100])
def test_a_budget_smaller_than_the_files_tables_is_a_damaged_file(saved, tmp_path, budget):
    """A header whose max_table_bytes refuses the tables the file holds (no fit could have
    written them) is a damaged model file, not a budget refusal."""
    def damage(header):
        header["params"]["max_table_bytes"] = budget

    bad = _rewrite(saved["AODE"], tmp_path / "budget.npz", damage)
    with pytest.raises(ModelFileError, match="max_table_bytes"):
        load_model(bad)


# ------------------------------------------------------- members and decompression bombs
def test_a_foreign_member_is_refused(saved, tmp_path):
    members = _members(saved["AODE"])
    for extra in ("evil.npy", "learned_x.pkl", "../header.npy", "table_bogus.npy"):
        bad = _write(tmp_path / "extra.npz", {**members, extra: _npy(np.zeros(3))})
        with pytest.raises(ModelFileError, match="no seminaive model file has"):
            load_model(bad)


def test_an_object_array_is_refused_without_unpickling(saved, tmp_path):
    buf = io.BytesIO()
    np.save(buf, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    members = {**_members(saved["AODE"]), "learned_x.npy": buf.getvalue()}
    with pytest.raises(ModelFileError, match="plain numeric arrays only"):
        load_model(_write(tmp_path / "obj.npz", members))


def _bomb_member(n_bytes, declared=None):
    """A .npy member of ``n_bytes`` of zeros whose header declares ``declared`` bytes."""
    header = io.BytesIO()
    declared = n_bytes if declared is None else declared
    np.lib.format.write_array_header_1_0(
        header, {"descr": "|u1", "fortran_order": False, "shape": (declared,)})
    return header.getvalue(), n_bytes


def _write_streamed(path, members, bombs, compression):
    """The members, plus bomb members of zeros written without holding them in memory."""
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, raw in members.items():
            zf.writestr(name, raw)
        chunk = bytes(1 << 20)
        for name, (head, n_bytes) in bombs.items():
            with zf.open(name, "w", force_zip64=True) as fh:
                fh.write(head)
                left = n_bytes
                while left:
                    fh.write(chunk[:min(left, len(chunk))])
                    left -= min(left, len(chunk))
    return path


def _peak_while_loading(path):
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError) as caught:
            load_model(path)
        return tracemalloc.get_traced_memory()[1], str(caught.value)
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("compression", [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2])
def test_decompression_bombs_are_refused_before_decompressing(saved, tmp_path, compression):
    members = _members(saved["AODE"])
    # an unknown member (here a bzip2 one in the first case) of 256 MiB of zeros
    bomb = _write_streamed(tmp_path / "bomb1.npz", members,
                           {"zeros.npy": _bomb_member(256 << 20)}, compression)
    assert os.path.getsize(bomb) < 4 << 20
    peak, message = _peak_while_loading(bomb)
    assert ("no seminaive model file has" in message or "compression method" in message)
    assert peak < 16 << 20
    # a learnt member whose header declares 8 bytes but which holds 256 MiB
    bomb = _write_streamed(tmp_path / "bomb2.npz", members,
                           {"learned_x.npy": _bomb_member(256 << 20, declared=8)},
                           compression)
    peak, message = _peak_while_loading(bomb)
    assert ("declares" in message or "compression method" in message) and peak < 16 << 20
    # a learnt member that declares 16 GiB: over twice the model's 4 GiB budget at once
    bomb = _write_streamed(tmp_path / "bomb3.npz", members,
                           {"learned_x.npy": _bomb_member(1 << 20, declared=16 << 30)},
                           zipfile.ZIP_DEFLATED)
    peak, message = _peak_while_loading(bomb)
    assert "more than the" in message and peak < 16 << 20


@pytest.mark.parametrize("budget", [4 << 30, None, 2**60])
def test_claimed_shapes_of_1e12_are_refused_at_once(saved, tmp_path, budget):
    # the header's own max_table_bytes (None: unbounded) cannot lift the loader's ceiling
    path = _rewrite(saved["AODE"], tmp_path / "budget.npz",
                    lambda h: h["params"].update(max_table_bytes=budget))
    members = _members(path)
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        head, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)})
    members["table_counts.npy"] = head.getvalue() + bytes(64)
    peak, message = _peak_while_loading(_write(tmp_path / "huge.npz", members))
    assert "declares 8,000,000,000,000 bytes" in message and peak < 16 << 20


def test_loading_stays_within_a_small_multiple_of_the_declared_size(saved, tmp_path):
    # a learnt member of 64 MiB declared and held: the loader allocates it once
    members = _members(saved["AODE"])
    size = 64 << 20
    path = _write_streamed(tmp_path / "big.npz", members,
                           {"learned_big.npy": _bomb_member(size)}, zipfile.ZIP_DEFLATED)
    tracemalloc.start()
    try:
        try:
            load_model(path)
        except ModelFileError:
            pass  # AODE has no learnt array of that name: refused after reading
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1.5 * size, peak
    # and a budget below it refuses it before reading
    with pytest.raises(ModelFileError, match="more than the"):
        load_model(path, max_bytes=size // 2)


def test_a_smaller_model_budget_bounds_what_the_file_may_declare(tmp_path, data):
    X, y = data
    path = tmp_path / "small.npz"
    AODE(max_table_bytes=1 << 20).fit(X, y).save(path)
    assert _loads_and_predicts_finite(path, X)
    members = _members(path)
    bomb = _write_streamed(tmp_path / "bomb.npz", members,
                           {"learned_x.npy": _bomb_member(4 << 20)}, zipfile.ZIP_DEFLATED)
    peak, message = _peak_while_loading(bomb)
    assert "more than the" in message and peak < 4 << 20


def test_member_swaps_and_duplicates(saved, tmp_path, data):
    members = _members(saved["KDB"])
    names = sorted(members)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            swapped = dict(members)
            swapped[a], swapped[b] = members[b], members[a]
            _loads_and_predicts_finite(_write(tmp_path / "swap.npz", swapped), data[0])
    # the same member twice (zipfile warns about the duplicate name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(tmp_path / "dup.npz", "w") as zf:
            for name, raw in members.items():
                zf.writestr(name, raw)
            zf.writestr("table_counts.npy", members["table_counts.npy"])
    with pytest.raises(ModelFileError, match="twice"):
        load_model(tmp_path / "dup.npz")


# ------------------------------------------------------------------------------ fuzz
_FUZZ = textwrap.dedent('''
    import io, json, resource, sys, warnings, zipfile
    import numpy as np
    warnings.simplefilter("ignore")
    sys.path.insert(0, sys.argv[3])
    from test_hostile_models import _data
    import seminaive
    from seminaive import ModelFileError
    from seminaive.persistence import ESTIMATORS, load_model

    n_mutations, seed = int(sys.argv[1]), int(sys.argv[2])
    X, y = _data(120)
    names = ["AODE", "KDB", "WANBIAC", "SelectiveAnDE"]
    raw = {}
    for name in names:
        model = ESTIMATORS[name]()
        if "random_state" in model.get_params():
            model.set_params(random_state=0)
        model.fit(X, y)
        model.predict_proba(X)  # compile before the memory limit
        buf = io.BytesIO()
        path = f"{sys.argv[4]}/{name}.npz"
        model.save(path)
        raw[name] = open(path, "rb").read()
    with open("/proc/self/status") as fh:
        vm = [int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize")][0]
    resource.setrlimit(resource.RLIMIT_AS, (vm + (768 << 20), vm + (768 << 20)))

    def members(blob):
        with zipfile.ZipFile(io.BytesIO(blob)) as zf:
            return {i.filename: zf.read(i) for i in zf.infolist()}

    def pack(mem, compression=zipfile.ZIP_DEFLATED):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", compression=compression) as zf:
            for k, v in mem.items():
                zf.writestr(k, v)
        return buf.getvalue()

    rng = np.random.default_rng(seed)
    path = f"{sys.argv[4]}/fuzz.npz"
    outcome = {"loaded": 0, "refused": 0}
    for i in range(n_mutations):
        name = names[i % len(names)]
        blob = bytearray(raw[name])
        kind = ["flip", "flips", "truncate", "swap", "bomb", "member_bytes"][rng.integers(6)]
        if kind == "flip":
            pos = rng.integers(len(blob))
            blob[pos] ^= 1 << rng.integers(8)
        elif kind == "flips":
            for pos in rng.integers(len(blob), size=rng.integers(2, 40)):
                blob[pos] = rng.integers(256)
        elif kind == "truncate":
            blob = blob[:rng.integers(len(blob))]
        elif kind == "swap":
            mem = members(bytes(blob))
            keys = sorted(mem)
            a, b = rng.choice(len(keys), 2, replace=False)
            mem[keys[a]], mem[keys[b]] = mem[keys[b]], mem[keys[a]]
            blob = pack(mem)
        elif kind == "bomb":
            mem = members(bytes(blob))
            key = sorted(mem)[rng.integers(len(mem))]
            head = io.BytesIO()
            declared = int(rng.choice([8, 1 << 20, 1 << 40]))
            np.lib.format.write_array_header_1_0(
                head, {"descr": "|u1", "fortran_order": False, "shape": (declared,)})
            mem[key] = head.getvalue() + bytes(int(rng.choice([16, 16 << 20])))
            blob = pack(mem, [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2][rng.integers(2)])
        else:  # damage the decompressed bytes of one member, then pack again
            mem = members(bytes(blob))
            key = sorted(mem)[rng.integers(len(mem))]
            data = bytearray(mem[key])
            for pos in rng.integers(len(data), size=rng.integers(1, 6)):
                data[pos] = rng.integers(256)
            mem[key] = bytes(data)
            blob = pack(mem)
        with open(path, "wb") as fh:
            fh.write(bytes(blob))
        try:
            model = load_model(path)
        except ModelFileError:
            outcome["refused"] += 1
            continue
        except Exception as err:
            print(f"mutation {i} ({kind} of {name}): {type(err).__name__}: {err}")
            raise
        proba = model.predict_proba(X)
        if not (np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)):
            print(f"mutation {i} ({kind} of {name}) predicts non-finite probabilities")
            sys.exit(3)
        outcome["loaded"] += 1
    print(json.dumps(outcome))
''')


def _fuzz(tmp_path, n_mutations, seed):
    result = subprocess.run(
        [sys.executable, "-c", _FUZZ, str(n_mutations), str(seed),
         os.path.dirname(__file__), str(tmp_path)],
        capture_output=True, text=True, timeout=3600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome["loaded"] + outcome["refused"] == n_mutations
    return outcome


def test_fuzzed_model_files_load_and_predict_finite_or_are_refused(tmp_path):
    outcome = _fuzz(tmp_path, 300, seed=0)
    assert outcome["refused"] > 100  # the mutations do reach the checks


@pytest.mark.slow
def test_fuzzed_model_files_many(tmp_path):
    _fuzz(tmp_path, 3000, seed=1)


def test_clean_files_still_load_exactly(saved, data):
    X, _ = data
    for path in saved.values():
        model = seminaive.load(path)
        assert np.all(np.isfinite(model.predict_proba(X)))
