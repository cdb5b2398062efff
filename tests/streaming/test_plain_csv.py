"""A plain all-string CSV file read by coding its fields as its lines are split
(``_ArrowCsvReader._read_plain``): the very table pyarrow's parse and the dictionary pass
give, the same model as the pyarrow route, and the pyarrow route whenever the file is not
plain (quotes, a numeric column, a byte order mark, bytes that are not UTF-8, ...)."""

import os
import re

import numpy as np
import pandas as pd
import pytest

from seminaive import AODE, KDB, TAN, NaiveBayes
from seminaive.cli import main
from seminaive.exceptions import InputError
from seminaive.persistence import load_model
from seminaive.streaming import _fit as stream_fit
from seminaive.streaming import _readers as readers
from seminaive.streaming import fit_stream
from seminaive.streaming._readers import _NULL_STRINGS, _ArrowCsvReader, _encode_strings


def _pyarrow_table(path, columns=None):
    reader = _ArrowCsvReader([path])
    reader._header(str(path))
    table = reader._read_whole(str(path), columns)
    return _encode_strings(table)[0]


def _plain_table(path, columns=None):
    reader = _ArrowCsvReader([path])
    reader._header(str(path))
    return reader._read_plain(str(path), columns)


def _text(rng, rows, crlf=False, final_newline=True, n_values=5, nulls=True):
    pool = [f"v{k}" for k in range(n_values)] + (["", "NA", "null", "N/A", "nan"] if nulls
                                                 else [])
    lines = ["a0,a1,a2,label"] + [
        ",".join([*(pool[rng.integers(len(pool))] for _ in range(3)),
                  "c1" if rng.random() < 0.4 else "c0"]) for _ in range(rows)]
    lines[-1] = lines[-1].rsplit(",", 1)[0] + ",c_last"  # a class seen last
    lines.insert(len(lines) // 2, "")  # an empty line
    end = "\r\n" if crlf else "\n"
    return end.join(lines) + (end if final_newline else "")


@pytest.mark.parametrize("crlf", [False, True])
@pytest.mark.parametrize("final_newline", [False, True])
@pytest.mark.parametrize("columns", [None, ["a2", "label"]])
def test_the_table_pyarrow_gives(tmp_path, crlf, final_newline, columns):
    rng = np.random.default_rng(3 + crlf + 2 * final_newline)
    path = tmp_path / "data.csv"
    path.write_bytes(_text(rng, 2001, crlf, final_newline).encode())
    plain = _plain_table(path, columns)
    assert plain is not None
    reference = _pyarrow_table(path, columns)
    assert plain.schema == reference.schema
    for name in plain.column_names:  # the same values, nulls and dictionary order
        assert plain[name].to_pylist() == reference[name].to_pylist()
        assert (plain[name].combine_chunks().dictionary.to_pylist()
                == reference[name].combine_chunks().dictionary.to_pylist())


@pytest.mark.parametrize("text", [
    'a0,label\n"v0",c0\nv1,c1\n',  # a quote
    "a0,label\n1,c0\n2,c1\n",  # a numeric column
    "a0,label\nNA,c0\n,c1\n",  # a column of nulls only
    "\ufeffa0,label\nv0,c0\nv1,c1\n",  # a byte order mark
    "a0,label\nv0,c0,x\nv1,c1\n",  # a line of another number of fields
    "a0,label\nv0,c0\rv1,c1\n",  # a lone carriage return
])
def test_not_plain_files_take_the_pyarrow_route(tmp_path, text):
    path = tmp_path / "data.csv"
    path.write_bytes(text.encode())
    assert _plain_table(path) is None


@pytest.mark.parametrize("value", [
    "v0", "c12", "a1b", "E5", "e5", "e1e5", "Z9", "x2020-01-01", "T12:00:00", "n1", "nan1",
    "inf1", "Inf1", "true1", "N1A", "x1.5", "A0x", "v0 ", "h1\t",
    # not text by the rule (pyarrow decides): numbers, booleans, nulls, dates and times
    "1", "-1", "1.5", "1e5", "inf", "-inf", "nan", "NaN", "true", "False", "NA", "N/A",
    "null", "2020-01-01", "12:00:00", "2020-01-01T12:00:00", "0x1F", "1v", "v", "abc"])
def test_surely_text_is_what_pyarrow_types_as_strings(value, monkeypatch):
    """A value :func:`_surely_text` calls text makes pyarrow's inference type its column as
    strings, whatever the column's other values (a number, a null, a date); the shortcut
    and pyarrow's read decide every column alike."""
    field = value.encode()
    others = [b"1", b"", b"NA", b"2020-01-01", b"true", b"1.5"]
    surely = readers._surely_text(field)
    assert surely == (field[:1].isalpha() and any(ch.isdigit() for ch in value))
    columns = [[field, other] for other in others] + [[other] for other in others]
    got = readers._inferred_as_strings(columns)
    monkeypatch.setattr(readers, "_surely_text", lambda v: False)  # pyarrow's read alone
    reference = readers._inferred_as_strings(columns)
    assert got == reference
    if surely:
        assert all(got[:len(others)])


def test_bytes_that_are_not_utf8_take_the_pyarrow_route(tmp_path):
    path = tmp_path / "data.csv"
    path.write_bytes(b"a0,label\nv\xff,c0\nv1,c1\n")
    assert _plain_table(path) is None


def test_too_many_values_take_the_pyarrow_route(tmp_path):
    path = tmp_path / "data.csv"
    path.write_bytes(("a0,label\n" + "".join(f"w{i},c{i % 2}\n" for i in range(5000)))
                     .encode())
    assert _plain_table(path) is None


@pytest.mark.parametrize("cls", [NaiveBayes, AODE])
@pytest.mark.parametrize("missing", ["ignore", "value"])
@pytest.mark.parametrize("chunk_rows", [None, 77])
@pytest.mark.parametrize("weights", [False, True])
def test_same_model_as_the_pyarrow_route(tmp_path, monkeypatch, cls, missing, chunk_rows,
                                         weights):
    """(A weight column is numeric: that file takes the pyarrow route.)"""
    rng = np.random.default_rng(11)
    path = tmp_path / "data.csv"
    text = _text(rng, 3000, crlf=True, final_newline=False)
    lines = text.split("\r\n")
    if weights:
        lines[0] += ",w"
        lines[1:] = [line + f",{rng.integers(1, 4)}" if line else line for line in lines[1:]]
    path.write_bytes("\r\n".join(lines).encode())
    weight = "w" if weights else None
    calls = _spy_plain_codes(monkeypatch, "_read_plain")
    monkeypatch.setattr(_ArrowCsvReader, "plain_reads", True)
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)  # the frames of _read_plain
    model = fit_stream(cls(missing=missing), str(path), target="label", sample_weight=weight,
                       chunk_rows=chunk_rows)
    assert calls and all(calls) != weights
    monkeypatch.setattr(_ArrowCsvReader, "_read_plain", lambda self, *args: None)
    ref = fit_stream(cls(missing=missing), str(path), target="label", sample_weight=weight,
                     chunk_rows=chunk_rows)
    _same_model(model, ref)
    assert "c_last" in model.classes_.tolist()


def _spy_plain_codes(monkeypatch, method="plain_codes"):
    """Whether each call of the reader's ``method`` coded the file (not None)."""
    calls = []
    plain = getattr(_ArrowCsvReader, method)

    def spy(self, *args, **kwargs):
        got = plain(self, *args, **kwargs)
        calls.append(got is not None)
        return got

    monkeypatch.setattr(_ArrowCsvReader, method, spy)
    return calls


@pytest.mark.parametrize("cls", [NaiveBayes, AODE, TAN, KDB])
@pytest.mark.parametrize("missing", ["ignore", "value"])
@pytest.mark.parametrize("chunk_rows", [None, 77])
@pytest.mark.parametrize("features", [None, ["a2", "a0"]])
def test_fit_from_the_codes_gives_the_model_of_the_pyarrow_route(
        tmp_path, monkeypatch, cls, missing, chunk_rows, features):
    """fit_stream counting a plain file's codes (no frames; a learner's later passes
    replay the coded chunks) against the pyarrow route: the same classes, values and
    counts, and the same predictions."""
    rng = np.random.default_rng(17)
    path = tmp_path / "data.csv"
    path.write_bytes(_text(rng, 3000, crlf=True, final_newline=False).encode())
    calls = _spy_plain_codes(monkeypatch)
    model = fit_stream(cls(missing=missing), str(path), target="label", features=features,
                       chunk_rows=chunk_rows)
    assert calls == [True]  # one read of the file
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    ref = fit_stream(cls(missing=missing), str(path), target="label", features=features,
                     chunk_rows=chunk_rows)
    _same_model(model, ref)
    assert "c_last" in model.classes_.tolist()
    X = pd.read_csv(path, dtype=str, keep_default_na=False).drop(columns="label")
    X = X.replace(sorted(_NULL_STRINGS), None)
    X = X if features is None else X[features]
    np.testing.assert_array_equal(model.predict_proba(X), ref.predict_proba(X))


@pytest.mark.parametrize("text, plain", [
    ("a0,label\nv0,c0\nv1,c1\nv2,c0\n", True),
    ('a0,label\n"v0",c0\nv1,c1\nv2,c0\n', False),  # a quote: pyarrow's route
    ("a0,label\nv0,c0\nv1,1\nv2,c0\n", True),  # labels "c0" and "1": strings
    ("a0,label\n1,c0\n2,c1\n3,c0\n", False),  # a numeric feature
    ("a0,label\nv0,0\nv1,1\nv2,0\n", False),  # numeric labels
])
def test_fit_from_the_codes_or_the_pyarrow_route(tmp_path, monkeypatch, text, plain):
    path = tmp_path / "data.csv"
    path.write_bytes(text.encode())
    calls = _spy_plain_codes(monkeypatch)
    model = fit_stream(NaiveBayes(), str(path), target="label")
    assert calls == [plain]
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    ref = fit_stream(NaiveBayes(), str(path), target="label")
    assert model.classes_.tolist() == ref.classes_.tolist()
    assert model.encoder_.categories_ == ref.encoder_.categories_
    np.testing.assert_array_equal(model.table_.counts, ref.table_.counts)


def test_a_missing_label_is_refused_as_by_the_pyarrow_route(tmp_path, monkeypatch):
    path = tmp_path / "data.csv"
    path.write_bytes(b"a0,label\nv0,c0\nv1,NA\nv2,c0\n")
    with pytest.raises(InputError) as plain:
        fit_stream(NaiveBayes(), str(path), target="label")
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    with pytest.raises(InputError) as ref:
        fit_stream(NaiveBayes(), str(path), target="label")
    assert str(plain.value) == str(ref.value)


def test_weights_take_the_pyarrow_route(tmp_path, monkeypatch):
    calls = _spy_plain_codes(monkeypatch)
    path = tmp_path / "weighted.csv"
    path.write_bytes(b"a0,label,w\nv0,c0,1\nv1,c1,2\nv2,c0,1\n")
    fit_stream(NaiveBayes(), str(path), target="label", sample_weight="w")
    assert calls == []


# --------------------------------------------------------------------------------------------
# several files of the same header: the codes of the file holding their lines in turn
# --------------------------------------------------------------------------------------------


def _parts(tmp_path, rng, texts=None):
    """Files of other values, classes and line ends: one without a final line end, one
    of a header alone, a class (``c_only2``) and values (``v7``, ``w*``) met in one file
    only."""
    if texts is None:
        texts = [_text(rng, 700, crlf=False, final_newline=True),
                 "a0,a1,a2,label\n",  # a header alone
                 _text(rng, 900, crlf=True, final_newline=False, n_values=8),
                 _text(rng, 400, nulls=False).replace(",c0\n", ",c_only2\n")
                 .replace("v1,", "w1,")]
    paths = []
    for k, text in enumerate(texts):
        path = tmp_path / f"part{k}.csv"
        path.write_bytes(text.encode())
        paths.append(str(path))
    return paths


def _same_model(model, ref, X=None):
    assert model.classes_.tolist() == ref.classes_.tolist()
    assert model.encoder_.categories_ == ref.encoder_.categories_
    np.testing.assert_array_equal(model.table_.counts, ref.table_.counts)
    if X is not None:
        np.testing.assert_array_equal(model.predict_proba(X), ref.predict_proba(X))


def _frame_of(paths, features=None):
    X = pd.concat([pd.read_csv(p, dtype=str, keep_default_na=False) for p in paths],
                  ignore_index=True).drop(columns="label")
    X = X.replace(sorted(_NULL_STRINGS), None)
    return X if features is None else X[features]


@pytest.mark.parametrize("cls", [NaiveBayes, AODE, TAN, KDB])
@pytest.mark.parametrize("missing", ["ignore", "value"])
@pytest.mark.parametrize("chunk_rows", [None, 77])
@pytest.mark.parametrize("features", [None, ["a2", "a0"]])
def test_several_files_give_the_model_of_the_pyarrow_route(
        tmp_path, monkeypatch, cls, missing, chunk_rows, features):
    """The files coded one after the other (no frames) against the pyarrow route reading
    them in turn: the same classes, values, counts and predictions; and the counts of
    the one file holding their lines."""
    paths = _parts(tmp_path, np.random.default_rng(23))
    calls = _spy_plain_codes(monkeypatch)
    model = fit_stream(cls(missing=missing), paths, target="label", features=features,
                       chunk_rows=chunk_rows)
    assert calls == [True] * len(paths)  # each file read once, none by pyarrow
    assert {"c_only2", "c_last"} <= set(model.classes_.tolist())
    whole = tmp_path / "whole.csv"
    lines = [p for path in paths for p in open(path, newline="").read().splitlines()[1:]]
    whole.write_bytes(("a0,a1,a2,label\n" + "\n".join(lines) + "\n").encode())
    single = fit_stream(cls(missing=missing), str(whole), target="label", features=features,
                        chunk_rows=chunk_rows)
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    ref = fit_stream(cls(missing=missing), paths, target="label", features=features,
                     chunk_rows=chunk_rows)
    X = _frame_of(paths, features)
    _same_model(model, ref, X)
    _same_model(single, ref, X)


def test_a_column_typed_as_strings_by_an_earlier_file(tmp_path, monkeypatch):
    """A column of numbers in a later file is read as strings, as pyarrow reads it with the
    type the first file decided; numbers in the first file: the pyarrow route."""
    texts = ["a0,label\nv0,c0\nv1,c1\n", "a0,label\n1,c0\n2,c1\n"]
    paths = _parts(tmp_path, None, texts)
    calls = _spy_plain_codes(monkeypatch)
    model = fit_stream(NaiveBayes(), paths, target="label")
    assert calls == [True, True]
    assert model.encoder_.categories_ == [["1", "2", "v0", "v1"]]
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    _same_model(model, fit_stream(NaiveBayes(), paths, target="label"))
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", True)
    calls.clear()
    reversed_ = list(reversed(paths))
    model = fit_stream(NaiveBayes(), reversed_, target="label")
    assert calls == [False]
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    _same_model(model, fit_stream(NaiveBayes(), reversed_, target="label"))


@pytest.mark.parametrize("bad, plain", [
    ('a0,a1,a2,label\n"v0",v1,v2,c0\n', False),  # quotes: the pyarrow route
    ("a0,a1,a2,label\nv0,1,v2,c0\n", True),  # a1: strings, as the first file decided
    ("a2,a1,a0,label\nv0,v1,v2,c0\n", False),  # the columns in another order
])
def test_a_file_that_is_not_plain_takes_the_pyarrow_route(tmp_path, monkeypatch, bad, plain):
    rng = np.random.default_rng(29)
    paths = _parts(tmp_path, rng, [_text(rng, 300), bad, _text(rng, 300)])
    calls = _spy_plain_codes(monkeypatch, "plain_codes_of")
    model = fit_stream(AODE(), paths, target="label")
    assert calls == [plain]
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    _same_model(model, fit_stream(AODE(), paths, target="label"), _frame_of(paths))


@pytest.mark.parametrize("bad", [
    "a0,a1,a2,label\nv0,v1,c0\n",  # a line of another number of fields
    "a0,a1,label\nv0,v1,c0\n",  # other columns
    "",  # an empty file
    None,  # no such file
])
def test_a_bad_file_among_several_is_named(tmp_path, monkeypatch, bad):
    rng = np.random.default_rng(31)
    paths = _parts(tmp_path, rng, [_text(rng, 300), bad or "", _text(rng, 300)])
    if bad is None:
        os.remove(paths[1])
    for plain_fits in (True, False):
        monkeypatch.setattr(_ArrowCsvReader, "plain_fits", plain_fits)
        with pytest.raises(InputError, match=re.escape(paths[1])):
            fit_stream(NaiveBayes(), paths, target="label")


@pytest.mark.parametrize("cls", [NaiveBayes, AODE, KDB])
@pytest.mark.parametrize("split", [None, 3, 1])
def test_files_coded_in_batches_give_the_model_of_the_pyarrow_route(
        tmp_path, monkeypatch, cls, split):
    """The files' parts coded together on the threads (code_csv_files), in batches of at
    most half the budget of bytes: one batch of every file (the default budget), the first
    three and the last (a budget of twice their bytes), or one a file (no two fit); a
    file whose codes do not fit with those before it coded again block by block.  Each
    file read once by plain_codes, the classes, values, counts and predictions of the
    pyarrow route."""
    rng = np.random.default_rng(47)
    paths = _parts(tmp_path, rng)
    sizes = [os.path.getsize(p) for p in paths]
    budget = None
    if split is not None:
        budget = 2 * (sum(sizes[:split]) + (split == 1))
    batches = []
    files = readers.code_csv_files

    def spy(datas, *args, **kwargs):
        batches.append(len(datas))
        return files(datas, *args, **kwargs)

    monkeypatch.setattr(readers, "code_csv_files", spy)
    calls = _spy_plain_codes(monkeypatch)
    model = fit_stream(cls(), paths, target="label", keep_bytes=budget)
    assert calls == [True] * len(paths)
    if split is None:
        assert batches == [4]
    elif split == 3:
        assert batches == [3, 1]
    else:  # each file alone; the third, over half the budget, coded block by block
        assert sizes[2] > budget // 2 >= max(sizes[0], sizes[1], sizes[3])
        assert batches == [1, 1, 1]
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    ref = fit_stream(cls(), paths, target="label", keep_bytes=budget)
    _same_model(model, ref, _frame_of(paths))


def test_files_of_a_header_alone_hold_no_rows(tmp_path, monkeypatch):
    paths = _parts(tmp_path, None, ["a0,label\n", "a0,label"])
    with pytest.raises(InputError) as plain:
        fit_stream(NaiveBayes(), paths, target="label")
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    with pytest.raises(InputError) as ref:
        fit_stream(NaiveBayes(), paths, target="label")
    assert str(plain.value) == str(ref.value)


def test_several_files_over_the_budget_take_the_pyarrow_route(tmp_path, monkeypatch):
    rng = np.random.default_rng(37)
    paths = _parts(tmp_path, rng, [_text(rng, 2000), _text(rng, 2000)])
    calls = _spy_plain_codes(monkeypatch)
    # each file's codes fit (about 40 kB), both together do not
    model = fit_stream(NaiveBayes(), paths, target="label", keep_bytes=60_000)
    assert calls == [True, True]
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    _same_model(model, fit_stream(NaiveBayes(), paths, target="label"))


# --------------------------------------------------------------------------------------------
# files over half the budget (or whose codes take more than it): coded block by block
# --------------------------------------------------------------------------------------------


def _spy_blocks(monkeypatch):
    """The rows of every block coded again (the counting pass, and a learner's later
    passes when the chunks are not kept)."""
    calls = []
    parts = readers.PlainBlock.parts

    def spy(self):
        calls.append(self.rows)
        return parts(self)

    monkeypatch.setattr(readers.PlainBlock, "parts", spy)
    return calls


@pytest.mark.parametrize("cls", [NaiveBayes, AODE, TAN, KDB])
@pytest.mark.parametrize("missing", ["ignore", "value"])
@pytest.mark.parametrize("chunk_rows", [None, 77])
@pytest.mark.parametrize("budget", [0, 60_000])
def test_a_file_over_the_budget_is_coded_block_by_block(
        tmp_path, monkeypatch, cls, missing, chunk_rows, budget):
    """Blocks of about 4 kB (values first met in later blocks, a class in the last row):
    pass 1 the values, the counting pass each block coded again; the chunks kept within
    the budget (60 kB) for a learner's later passes, else made again.  The classes, values,
    counts and predictions of the pyarrow route."""
    monkeypatch.setattr(readers, "PLAIN_BLOCK_BYTES", 4096)
    rng = np.random.default_rng(43)
    path = tmp_path / "data.csv"
    text = _text(rng, 3000, crlf=True, final_newline=False)
    lines = text.split("\r\n")
    lines[2500] = "late0,v1,late2,c1"  # values met in a late block only
    path.write_bytes("\r\n".join(lines).encode())
    assert path.stat().st_size > 8 * 4096
    calls = _spy_plain_codes(monkeypatch)
    blocks = _spy_blocks(monkeypatch)
    model = fit_stream(cls(missing=missing), str(path), target="label",
                       chunk_rows=chunk_rows, keep_bytes=budget)
    assert calls == [True]
    assert len(blocks) >= (8 if budget == 0 else 3)
    assert sum(blocks) % 3000 == 0  # every block, once a pass
    assert "late0" in model.encoder_.categories_[0]
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    ref = fit_stream(cls(missing=missing), str(path), target="label", chunk_rows=chunk_rows,
                     keep_bytes=budget)
    _same_model(model, ref, _frame_of([str(path)]))


def test_pass_one_of_a_file_in_blocks_collects_the_values_without_codes(tmp_path,
                                                                         monkeypatch):
    """A file coded block by block: pass 1 collects each block's values alone
    (csv_values, no codes written); the lines are coded (code_csv_parts) only when a block
    is counted, once a block; the model that of the pyarrow route."""
    monkeypatch.setattr(readers, "PLAIN_BLOCK_BYTES", 4096)
    path = tmp_path / "data.csv"
    path.write_bytes(_text(np.random.default_rng(44), 3000).encode())
    coded, collected = [], []
    code_parts, values = readers.code_csv_parts, readers.csv_values
    monkeypatch.setattr(readers, "code_csv_parts",
                        lambda *a, **k: coded.append(1) or code_parts(*a, **k))
    monkeypatch.setattr(readers, "csv_values",
                        lambda *a, **k: collected.append(1) or values(*a, **k))
    blocks = _spy_blocks(monkeypatch)
    model = fit_stream(NaiveBayes(), str(path), target="label", keep_bytes=0)
    assert len(collected) == len(blocks) >= 8  # pass 1: each block's values
    assert len(coded) == len(blocks)  # the counting pass: each block coded once
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    ref = fit_stream(NaiveBayes(), str(path), target="label", keep_bytes=0)
    _same_model(model, ref, _frame_of([str(path)]))


@pytest.mark.parametrize("cls", [NaiveBayes, TAN])
def test_several_files_kept_and_in_blocks(tmp_path, monkeypatch, cls):
    """Files of 8.9 kB, a header, 12.1 kB and 6.0 kB, a budget of 18 kB: the third file
    (over half the budget) coded block by block, the others' codes kept (12 bytes a row:
    together within the budget), and the chunks kept for TAN's passes (7 bytes a row): the
    model of the pyarrow route.  Four copies of the last file and a budget of 14 kB: each
    file within half the budget, the codes of the first two within the budget (4.8 kB
    each), the last two coded block by block."""
    monkeypatch.setattr(readers, "PLAIN_BLOCK_BYTES", 4096)
    paths = _parts(tmp_path, np.random.default_rng(47))
    blocks = _spy_blocks(monkeypatch)
    model = fit_stream(cls(), paths, target="label", chunk_rows=100, keep_bytes=18_000)
    assert len(blocks) >= 2 and sum(blocks) == 900  # the third file's, once
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    ref = fit_stream(cls(), paths, target="label", chunk_rows=100, keep_bytes=18_000)
    _same_model(model, ref, _frame_of(paths))
    copies = [paths[-1]] * 4
    ref = fit_stream(cls(), copies, target="label", chunk_rows=100, keep_bytes=14_000)
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", True)
    monkeypatch.setattr(readers, "PLAIN_BLOCK_BYTES", 1 << 20)
    blocks.clear()
    model = fit_stream(cls(), copies, target="label", chunk_rows=100, keep_bytes=14_000)
    assert blocks == [400, 400]  # once: the chunks (11.2 kB) are kept for TAN's passes
    _same_model(model, ref, _frame_of(copies))


def test_a_block_of_a_file_that_changed_is_refused(tmp_path):
    path = tmp_path / "data.csv"
    path.write_bytes(_text(np.random.default_rng(53), 500).encode())
    reader = _ArrowCsvReader([str(path)])
    plain = reader.plain_codes(str(path), None, False, True)
    assert not plain.kept and sum(block.rows for block in plain.groups) == plain.n_rows
    text = path.read_bytes()
    path.write_bytes(text.replace(b"v1,", b"v9,"))  # a value the first pass did not see
    with pytest.raises(InputError, match=re.escape(repr(str(path)))):
        plain.groups[0].parts()
    path.write_bytes(text[:len(text) // 2])  # shorter
    with pytest.raises(InputError, match="changed"):
        plain.groups[0].parts()


@pytest.mark.parametrize("budget", [None, 0])
def test_progress_of_the_plain_route(tmp_path, monkeypatch, capsys, budget):
    """progress=True: a bar of the rows coded in pass 1, file by file (block by block for a
    file coded in blocks), whose total is the rows of the files; progress=False: no bar,
    and tqdm is not imported."""
    import sys

    import seminaive.streaming._fit as fit_module

    monkeypatch.setattr(readers, "PLAIN_BLOCK_BYTES", 4096)
    paths = _parts(tmp_path, np.random.default_rng(59))
    bars = []
    made = fit_module._progress_bar

    def recording(progress, total, desc):
        bar = made(progress, total, desc)
        updates = []
        update = bar.update
        bar.update = lambda n=1: updates.append(n) or update(n)
        bars.append((desc, updates))
        return bar

    monkeypatch.setattr(fit_module, "_progress_bar", recording)
    fit_stream(NaiveBayes(), paths, target="label", progress=True, keep_bytes=budget)
    desc, updates = bars[0]
    assert desc.startswith("pass 1/2") and "plain" in desc
    assert sum(updates) == 2000  # the rows of the four files
    assert len(updates) == 4 if budget is None else len(updates) >= 6  # files or blocks
    assert "pass 1/2" in capsys.readouterr().err
    monkeypatch.delitem(sys.modules, "tqdm.auto", raising=False)
    bars.clear()
    fit_stream(NaiveBayes(), paths, target="label", progress=False, keep_bytes=budget)
    assert "tqdm.auto" not in sys.modules
    assert isinstance(made(False, None, "x"), readers._NoBar)


# --------------------------------------------------------------------------------------------
# a path with wildcards: the files it matches, sorted
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("plain", [True, False])
def test_a_pattern_is_the_files_it_matches_in_sorted_order(tmp_path, monkeypatch, plain):
    """``"part*.csv"`` (and ``part[0-3].csv``, ``**``): the list of the files it matches
    in sorted order (the files written out of order, another file beside them left out),
    and its model, on the plain route (the files coded, not parsed) and on pyarrow's."""
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", plain)
    paths = _parts(tmp_path, np.random.default_rng(29))
    for path in reversed(paths):  # written (and listed by the folder) in another order
        data = open(path, "rb").read()
        os.remove(path)
        open(path, "wb").write(data)
    (tmp_path / "other.csv").write_text("x,label\n1,c9\n")
    calls = _spy_plain_codes(monkeypatch)
    opened = []  # the files of every reader fit_stream opened
    open_source = stream_fit.open_source

    def spy(source, *args):
        reader = open_source(source, *args)
        opened.append(list(reader.paths))
        return reader

    monkeypatch.setattr(stream_fit, "open_source", spy)
    ref = fit_stream(AODE(), paths, target="label")
    assert calls == ([True] * len(paths) if plain else [])
    for pattern in ("part*.csv", "part[0-3].csv", "**/part?.csv"):
        calls.clear()
        model = fit_stream(AODE(), str(tmp_path / pattern), target="label")
        assert calls == ([True] * len(paths) if plain else [])
        _same_model(model, ref, _frame_of(paths))
        assert opened[-1] == paths  # sorted
    # a list of patterns and paths: each expanded in turn, in the list's order
    model = fit_stream(AODE(), [str(tmp_path / "part[13].csv"), paths[2],
                                str(tmp_path / "part0*")], target="label")
    assert opened[-1] == [paths[1], paths[3], paths[2], paths[0]]
    _same_model(model, ref)


def test_predict_stream_reads_a_pattern_as_the_files_it_matches(tmp_path):
    """``predict_stream`` takes the same patterns as ``fit_stream``: the rows of the files
    the pattern matches, in sorted order (written out of order here), predicted as the
    list of those files is; a pattern that matches nothing is an error naming it."""
    paths = _parts(tmp_path, np.random.default_rng(31))
    for path in reversed(paths):
        data = open(path, "rb").read()
        os.remove(path)
        open(path, "wb").write(data)
    model = fit_stream(AODE(), paths, target="label")
    by_list, by_pattern = tmp_path / "list.parquet", tmp_path / "pattern.parquet"
    n = model.predict_stream(paths, str(by_list))
    assert model.predict_stream(str(tmp_path / "part*.csv"), str(by_pattern)) == n
    pd.testing.assert_frame_equal(pd.read_parquet(by_pattern), pd.read_parquet(by_list))
    expected = model.predict(_frame_of(paths))
    np.testing.assert_array_equal(pd.read_parquet(by_pattern)["prediction"], expected)
    pattern = str(tmp_path / "missing-*.csv")
    with pytest.raises(InputError, match=re.escape(repr(pattern))):
        model.predict_stream(pattern, str(tmp_path / "none.parquet"))
    assert not (tmp_path / "none.parquet").exists()


def test_the_command_line_and_explain_stream_read_a_pattern(tmp_path, monkeypatch):
    """Every route that reads files takes a pattern as the files it matches, sorted (they
    share ``open_source``): ``seminaive fit``, ``predict`` and ``explain`` (its plots too)
    and ``explain_stream`` give what they give for the list of those files; the output
    may not be one of the files a pattern matches."""
    monkeypatch.chdir(tmp_path)
    paths = _parts(tmp_path, np.random.default_rng(37))
    for path in reversed(paths):  # written (and listed by the folder) in another order
        data = open(path, "rb").read()
        os.remove(path)
        open(path, "wb").write(data)
    pattern = str(tmp_path / "part*.csv")
    ref = fit_stream(NaiveBayes(), paths, target="label")
    assert main(["fit", pattern, "--target", "label", "--learner", "NaiveBayes", "-o",
                 "nb.npz", "--quiet"]) == 0
    model = load_model("nb.npz")
    _same_model(model, ref, _frame_of(paths))
    assert main(["predict", "nb.npz", pattern, "-o", "pred.parquet", "--quiet"]) == 0
    np.testing.assert_array_equal(pd.read_parquet("pred.parquet")["prediction"],
                                  ref.predict(_frame_of(paths)))
    ref.explain_stream(paths, "by_list.parquet")
    model.explain_stream(pattern, "by_pattern.parquet")
    expected = pd.read_parquet("by_list.parquet")
    assert expected.shape[0] == _frame_of(paths).shape[0]
    pd.testing.assert_frame_equal(pd.read_parquet("by_pattern.parquet"), expected)
    assert main(["explain", "nb.npz", pattern, "-o", "cli.parquet", "--plots", "plots",
                 "--plot-rows", "50", "--quiet"]) == 0
    pd.testing.assert_frame_equal(pd.read_parquet("cli.parquet"), expected)
    assert (tmp_path / "plots" / "summary_bar.png").is_file()
    # an output among the files the pattern matches is refused before anything is read
    before = open(paths[0], "rb").read()
    assert main(["predict", "nb.npz", pattern, "-o", paths[0], "--quiet"]) == 2
    assert open(paths[0], "rb").read() == before
    assert main(["fit", str(tmp_path / "missing-*.csv"), "--target", "label", "--learner",
                 "NaiveBayes", "-o", "none.npz", "--quiet"]) == 2
    assert not (tmp_path / "none.npz").exists()


def test_a_pattern_that_matches_nothing_is_an_error_naming_it(tmp_path):
    pattern = str(tmp_path / "missing-*.csv")
    with pytest.raises(InputError, match=re.escape(repr(pattern))):
        fit_stream(NaiveBayes(), pattern, target="label")
    with pytest.raises(InputError, match=re.escape(repr(pattern))):
        fit_stream(NaiveBayes(), [pattern], target="label")


def test_a_file_whose_name_holds_a_wildcard_is_that_file(tmp_path):
    """A path string naming an existing file is that file, wildcard or not."""
    path = tmp_path / "data[1].csv"
    path.write_bytes(_text(np.random.default_rng(31), 200).encode())
    (tmp_path / "data1.csv").write_text("x,label\n1,c9\n")  # what the pattern would match
    model = fit_stream(NaiveBayes(), str(path), target="label")
    assert model.table_.n_rows == 200


def test_the_chunks_of_several_files_run_on_from_one_file_into_the_next(tmp_path, monkeypatch):
    """Plain CSV files whose codes are kept are counted in chunks of ``chunk_rows`` rows
    that run on from one file into the next (as one file of their rows is), not a chunk
    (or a short one) per file: the chunks' rows, and the model of pyarrow's route (a chunk
    per file at least)."""
    paths = _parts(tmp_path, np.random.default_rng(41))
    n_rows = _frame_of(paths).shape[0]
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    ref = fit_stream(AODE(), paths, target="label", chunk_rows=300)
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", True)
    sizes = []
    count_chunk = AODE.count_chunk

    def spy(self, X, *args, **kwargs):
        sizes.append(X.shape[0])
        return count_chunk(self, X, *args, **kwargs)

    monkeypatch.setattr(AODE, "count_chunk", spy)
    calls = _spy_plain_codes(monkeypatch, "plain_codes_of")
    model = fit_stream(AODE(), paths, target="label", chunk_rows=300)
    assert calls == [True]  # the plain route
    assert sizes == [300] * (n_rows // 300) + ([n_rows % 300] if n_rows % 300 else [])
    _same_model(model, ref, _frame_of(paths))
