"""Files read through Arrow: column types decided once for the whole file, string columns
coded through their dictionaries, one parse of a file that fits in memory."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pytest

import seminaive.streaming._readers as readers
from seminaive import AODE, TAN, NaiveBayes
from seminaive.exceptions import InputError
from seminaive.preprocessing.validation import check_target, distinct_labels, encode_labels


def _string_csv(path, n, attributes, values, seed, target="label"):
    """A CSV (with a header) of string attributes ``a0``, ``a1``, ... of values ``v0``,
    ``v1``, ... (every value in the first rows of every column) and a class ``c0`` / ``c1``
    that follows ``a0`` in part, in the layout Petal reads; returns it as a DataFrame."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"a{j}": rng.choice([f"v{v}" for v in range(values)], n)
                          for j in range(attributes)})
    frame.iloc[:values, :] = [[f"v{v}"] * attributes for v in range(values)]
    frame[target] = np.where((frame["a0"] == "v1") | (rng.random(n) < 0.3), "c1", "c0")
    frame.to_csv(path, index=False)
    return frame


def _codes_file(path, letters_first, n=30_000):
    """A CSV whose column ``code`` holds letters only in its first rows (or only in its last
    rows) and zero-padded digits elsewhere."""
    rng = np.random.default_rng(1)
    codes = rng.choice(["01", "02", "03"], n).astype(object)
    where = slice(0, 5) if letters_first else slice(n - 5, n)
    codes[where] = "A3"
    other = rng.choice(["x", "y"], n)
    label = np.where((codes == "01") | (other == "x"), "yes", "no")
    pd.DataFrame({"code": codes, "other": other, "label": label}).to_csv(path, index=False)
    return pd.read_csv(path)


@pytest.mark.parametrize("letters_first", [True, False])
@pytest.mark.parametrize("whole_file", [True, False])
def test_column_type_does_not_depend_on_the_chunk_size(tmp_path, monkeypatch, letters_first,
                                                        whole_file):
    path = tmp_path / "codes.csv"
    frame = _codes_file(path, letters_first)
    if not whole_file:  # block by block: the first block decides, a later one widens
        monkeypatch.setattr(readers, "KEEP_BYTES", 0)
    X, y = frame.drop(columns="label"), frame["label"]
    ref = AODE().fit(X, y)
    assert ref.encoder_.categories_[0] == ["01", "02", "03", "A3"]
    for chunk_rows in (1000, 100_000):
        model = AODE().fit_stream(path, "label", chunk_rows=chunk_rows)
        assert model.encoder_.categories_ == ref.encoder_.categories_
        np.testing.assert_array_equal(model.predict_proba(X), ref.predict_proba(X))


@pytest.mark.parametrize("whole_file", [True, False])
def test_integers_then_floats_read_as_numbers(tmp_path, monkeypatch, whole_file):
    if not whole_file:
        monkeypatch.setattr(readers, "KEEP_BYTES", 0)
    rng = np.random.default_rng(2)
    n = 40_000
    values = rng.integers(0, 50, n).astype(object)
    values[-1] = "17.5"
    y = np.where(rng.random(n) < 0.5, "a", "b")
    path = tmp_path / "numbers.csv"
    pd.DataFrame({"v": values, "label": y}).to_csv(path, index=False)
    frame = pd.read_csv(path)
    assert frame["v"].dtype == np.float64
    ref = NaiveBayes().fit(frame[["v"]], frame["label"])
    model = NaiveBayes().fit_stream(path, "label", chunk_rows=500, sample_rows=None)
    assert model.encoder_.cut_points()[0].tolist() == ref.encoder_.cut_points()[0].tolist()
    np.testing.assert_array_equal(model.predict_proba(frame[["v"]]),
                                  ref.predict_proba(frame[["v"]]))


def test_predict_stream_refuses_a_value_of_another_type(tmp_path):
    rng = np.random.default_rng(3)
    train = pd.DataFrame({"size": rng.normal(size=300), "colour": rng.choice(["r", "g"], 300),
                          "label": rng.choice(["a", "b"], 300)})
    model = NaiveBayes().fit(train[["size", "colour"]], train["label"])
    test = train[["size", "colour"]].astype(object)
    test.loc[41, "size"] = "oops"
    path = tmp_path / "test.csv"
    test.to_csv(path, index=False)
    with pytest.raises(InputError, match=r"column 'size', line 43.*'oops'"):
        model.predict_stream(path, tmp_path / "out.parquet")
    assert not (tmp_path / "out.parquet").exists()


def test_predict_stream_reads_digits_as_the_strings_the_model_learnt(tmp_path):
    path = tmp_path / "codes.csv"
    frame = _codes_file(path, letters_first=True)
    model = AODE().fit_stream(path, "label")
    digits = frame.drop(columns="label").iloc[100:]
    assert "A3" not in set(digits["code"])
    test = tmp_path / "digits.csv"
    digits.to_csv(test, index=False)
    out = tmp_path / "pred.parquet"
    model.predict_stream(test, out)
    expected = model.predict_proba(digits)
    got = pd.read_parquet(out)[[f"proba_{c}" for c in model.classes_]].to_numpy()
    np.testing.assert_array_equal(got, expected)


def _count_plain_reads(monkeypatch, calls):
    """Count a plain CSV file's fields coded as its lines are split (``plain_codes``, not
    pyarrow's parser; and a block of a file too large for its codes to be kept, coded
    again) as a parse of the file, in ``calls``."""
    plain = readers._ArrowCsvReader.plain_codes
    block = readers.PlainBlock.parts

    def counting(self, path, *args):
        got = plain(self, path, *args)
        if got is not None:
            calls.append(path)
        return got

    def counting_block(self):
        calls.append(self.path)
        return block(self)

    monkeypatch.setattr(readers._ArrowCsvReader, "plain_codes", counting)
    monkeypatch.setattr(readers.PlainBlock, "parts", counting_block)


def test_a_file_that_fits_is_parsed_once(tmp_path, monkeypatch):
    """The scan keeps the parsed chunks: a learner's counting pass and extra passes do not
    parse the file again."""
    path = tmp_path / "data.csv"
    frame = _string_csv(path, 3000, 4, 3, seed=4)
    calls = []
    read_csv = pa_csv.read_csv

    def counting(*args, **kwargs):
        calls.append(args[0])
        return read_csv(*args, **kwargs)

    monkeypatch.setattr(pa_csv, "read_csv", counting)
    _count_plain_reads(monkeypatch, calls)
    X, y = frame.drop(columns="label"), frame["label"]
    for cls in (NaiveBayes, TAN):
        calls.clear()
        model = cls().fit_stream(path, "label", chunk_rows=700)
        calls[:] = [c for c in calls if str(c) == str(path)]  # (not pyarrow's type inference
        # on a plain file's distinct values, in memory)
        assert len(calls) == 1
        np.testing.assert_array_equal(model.predict_proba(X), cls().fit(X, y).predict_proba(X))


def test_parquet_strings_coded_through_dictionaries(tmp_path):
    """String columns of a Parquet file (read as dictionaries) and a declared Categorical
    column (its declared order kept) give fit's model, whatever the chunk size."""
    rng = np.random.default_rng(5)
    n = 5000
    frame = pd.DataFrame({"s": rng.choice(["b", "a", None, "c"], n),
                          "t": pd.Categorical(rng.choice(["lo", "hi"], n),
                                              categories=["lo", "hi", "mid"]),
                          "label": rng.choice(["yes", "no", "maybe"], n)})
    path = tmp_path / "data.parquet"
    frame.to_parquet(path, row_group_size=1700)
    X, y = frame.drop(columns="label"), frame["label"]
    ref = AODE().fit(X, y)
    for chunk_rows in (333, 10_000):
        model = AODE().fit_stream(path, "label", chunk_rows=chunk_rows)
        assert model.encoder_.categories_ == [["a", "b", "c"], ["lo", "hi", "mid"]]
        assert model.encoder_.categories_ == ref.encoder_.categories_
        np.testing.assert_array_equal(model.classes_, ref.classes_)
        np.testing.assert_array_equal(model.predict_proba(X), ref.predict_proba(X))


def test_categorical_labels_checked_on_their_categories():
    y = pd.Categorical(["b", "a", "b"], categories=["c", "b", "a"])
    assert check_target(y, 3) is y
    assert distinct_labels(y).tolist() == ["a", "b"]
    assert encode_labels(y, np.array(["a", "b", "c"])).tolist() == [1, 0, 1]
    with pytest.raises(InputError, match="missing value"):
        check_target(pd.Categorical(["a", None]), 2)
    with pytest.raises(InputError, match="continuous"):
        check_target(pd.Categorical([0.5, 1.5]), 2)
    with pytest.raises(InputError, match=r"classes \['z'\]"):
        encode_labels(pd.Categorical(["a", "z"]), np.array(["a", "b"]))


def test_labels_checked_on_distinct_values():
    """The type of the labels is decided on their distinct values: as before, floats that
    are not integers, mixed strings and numbers and missing labels are refused."""
    assert check_target(np.array(["b", "a"] * 5, dtype=object), 10).shape == (10,)
    with pytest.raises(InputError, match="continuous"):
        check_target(np.array([0.0, 0.5, 1.0]), 3)
    with pytest.raises(InputError, match="all strings or all numbers"):
        check_target(np.array(["a", 1], dtype=object), 2)
    with pytest.raises(InputError, match=r"e.g. at rows \[2\]"):
        check_target(np.array(["a", "b", None], dtype=object), 3)
    with pytest.raises(InputError, match="infinity"):
        check_target(np.array([1.0, np.inf]), 2)


def test_arrow_table_target_streamed(tmp_path):
    """A dictionary target whose dictionary holds a value no row holds: not a class."""
    labels = pa.DictionaryArray.from_arrays(pa.array([0, 1, 0, 1] * 50, pa.int32()),
                                            pa.array(["no", "yes", "never"]))
    table = pa.table({"x": pa.array(["p", "q", "q", "p"] * 50), "label": labels})
    path = tmp_path / "t.parquet"
    import pyarrow.parquet as pq

    pq.write_table(table, path)
    model = NaiveBayes().fit_stream(path, "label")
    assert model.classes_.tolist() == ["no", "yes"]


def test_memory_budget_of_kept_chunks(tmp_path, monkeypatch):
    """keep_bytes (argument, environment variable, default) decides whether the parsed
    chunks are kept: within the budget the file is parsed once, with a budget of 0 by every
    pass; the model is the same either way."""
    from seminaive.streaming import fit_stream, keep_bytes

    path = tmp_path / "data.csv"
    frame = _string_csv(path, 2000, 3, 3, seed=5)
    opened = []
    open_csv = pa_csv.open_csv
    read_csv = pa_csv.read_csv
    monkeypatch.setattr(pa_csv, "open_csv", lambda *a, **k: opened.append(a[0]) or open_csv(
        *a, **k))
    monkeypatch.setattr(pa_csv, "read_csv", lambda *a, **k: opened.append(a[0]) or read_csv(
        *a, **k))
    _count_plain_reads(monkeypatch, opened)
    monkeypatch.delenv("SEMINAIVE_KEEP_BYTES", raising=False)
    assert keep_bytes() == readers.KEEP_BYTES == 1 << 29
    X, y = frame.drop(columns="label"), frame["label"]
    expected = NaiveBayes().fit(X, y).predict_proba(X)
    parses = {}
    for name, kwargs, env in [("default", {}, None), ("zero", {"keep_bytes": 0}, None),
                              ("env zero", {}, "0"), ("env overridden", {"keep_bytes": 1 << 26},
                                                      "0")]:
        if env is None:
            monkeypatch.delenv("SEMINAIVE_KEEP_BYTES", raising=False)
        else:
            monkeypatch.setenv("SEMINAIVE_KEEP_BYTES", env)
        opened.clear()
        model = fit_stream(NaiveBayes(), path, "label", chunk_rows=300, **kwargs)
        np.testing.assert_array_equal(model.predict_proba(X), expected)
        parses[name] = len([p for p in opened if str(p) == str(path)])
    # (the header is parsed from the file's first line, not by opening pyarrow's reader
    # on the file: only the parses open it)
    assert parses["default"] == parses["env overridden"] == 1
    assert parses["zero"] == parses["env zero"] >= 2  # the scan, then the counts
    monkeypatch.setenv("SEMINAIVE_KEEP_BYTES", "lots")
    with pytest.raises(InputError, match="SEMINAIVE_KEEP_BYTES"):
        fit_stream(NaiveBayes(), path, "label")
    with pytest.raises(InputError, match="keep_bytes"):
        fit_stream(NaiveBayes(), path, "label", keep_bytes=-1)


@pytest.mark.parametrize("cls", [NaiveBayes, AODE])
def test_string_files_partial_fit_and_fit_give_the_same_counts(tmp_path, cls):
    """The same string data through fit (object and string[pyarrow] columns), fit_stream of a
    CSV and of a Parquet file (kept chunks, and re-parsed with a budget of 0) and partial_fit
    in chunks: the same counts, cell for cell."""
    n = 3000
    csv, parquet = tmp_path / "d.csv", tmp_path / "d.parquet"
    # the first chunk holds every value (partial_fit's value lists in fit's order)
    frame = _string_csv(csv, n, 5, 4, seed=7, target="class")
    frame.to_parquet(parquet, index=False)
    X, y = frame.drop(columns="class"), frame["class"]
    ref = cls().fit(X, y)
    arrow = cls().fit(X.astype("string[pyarrow]"), y.astype("string[pyarrow]"))
    models = [arrow, cls().fit_stream(csv, "class", chunk_rows=700),
              cls().fit_stream(parquet, "class", chunk_rows=700)]
    from seminaive.streaming import fit_stream
    models.append(fit_stream(cls(), csv, "class", chunk_rows=700, keep_bytes=0))
    partial = cls()
    for start in range(0, n, 1000):
        part = frame.iloc[start:start + 1000]
        partial.partial_fit(part.drop(columns="class").astype("string[pyarrow]"),
                            part["class"], classes=["c0", "c1"])
    models.append(partial)
    for model in models:
        assert model.encoder_.categories_ == ref.encoder_.categories_
        np.testing.assert_array_equal(model.table_.counts, ref.table_.counts)
        assert model.table_.n_rows == n


def test_a_file_of_many_blocks_coded_chunk_by_chunk(tmp_path, monkeypatch):
    """A CSV parsed in several blocks, its string columns coded block by block (a dictionary
    per block, each in its own order of first appearance): the counts of fit."""
    import seminaive.preprocessing._strings as strings

    monkeypatch.setattr(strings, "CHUNKED_ROWS", 1)
    path = tmp_path / "data.csv"
    frame = _string_csv(path, 90_000, 4, 5, seed=11)  # about 1.4 MB: blocks of 1 MB
    parsed = pa_csv.read_csv(path, read_options=pa_csv.ReadOptions(block_size=1 << 20))
    assert parsed.column("a0").num_chunks > 1
    X, y = frame.drop(columns="label"), frame["label"]
    ref = NaiveBayes().fit(X, y)
    from seminaive.streaming import fit_stream

    for keep in (None, 0):  # the whole file at once, and block by block
        model = fit_stream(NaiveBayes(), path, "label", chunk_rows=25_000, keep_bytes=keep)
        assert model.encoder_.categories_ == ref.encoder_.categories_
        np.testing.assert_array_equal(model.table_.counts, ref.table_.counts)


@pytest.mark.parametrize("text, names, quick", [
    ("a,b,c\n1,x,2\n", ["a", "b", "c"], True),
    ("a,b\r\n1,2\r\n", ["a", "b"], True),
    ("\ufeffa,b\n1,2\n", ["a", "b"], True),  # a byte-order mark, as pyarrow reads it
    ('a,"b\nc",d\n1,2,3\n', ["a", "b\nc", "d"], False),  # a quoted name over two lines
    ('"a","b"\n1,2\n', ["a", "b"], True),  # quoted names on one line (pyarrow's writer)
    ('"a""x",b\n1,2\n', ['a"x', "b"], True),  # a quote within a quoted name
    ('a"b,"c\nd",e\n1,2,3\n', ['a"b', "c\nd", "e"], False),  # two quotes, one line open
    ('"a,""b\nc",d\n1,2\n', ['a,"b\nc', "d"], False),
])
def test_header_names_read_from_the_first_line(tmp_path, text, names, quick):
    """The column names of a CSV file from its first line alone, or (a quote in it) from
    pyarrow's block reader: the names pyarrow's reader gives."""
    path = tmp_path / "h.csv"
    path.write_text(text, encoding="utf-8")
    assert (readers._header_line_names(path) is not None) == quick
    assert readers._ArrowCsvReader([path])._header(str(path)) == names
    assert list(pa_csv.open_csv(path).schema.names) == names


def test_plain_header_lines_split_as_pyarrow_reads_them():
    """A plain header line split at its commas (readers._plain_header, without pyarrow's
    reader): the names pyarrow's parser gives, on lines of spaces, tabs, non-ASCII names,
    CRLF and LF line ends and none; lines it does not take (a quote, a lone carriage
    return, a byte-order mark, an empty name, bytes that are not UTF-8) give None."""
    rng = np.random.default_rng(5)
    pieces = ["a", "b1", " c", "d ", "é", "名前", "x\ty", "a.b", "_", "v0", "#", "1"]
    for trial in range(200):
        names = [str(rng.choice(pieces)) + str(i) for i in range(rng.integers(1, 8))]
        end = [b"\n", b"\r\n", b""][trial % 3]
        line = ",".join(names).encode("utf-8") + end
        got = readers._plain_header(line)
        assert got == names
        text = line + (b"" if end else b"\n") + b"1" + b",1" * (len(names) - 1) + b"\n"
        assert list(pa_csv.open_csv(pa.BufferReader(text)).schema.names) == got
    for line in (b'"a",b\n', b"a,b\rc\n", b"\xef\xbb\xbfa,b\n", b"a,,b\n", b"a,b,\n",
                 b"a,\xff\n", b"\n", b""):
        assert readers._plain_header(line) is None
