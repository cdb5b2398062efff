"""The CSV field coder (seminaive.kernels.csv_codes) against pyarrow's reader: the same raw
strings in every cell, codes in order of first appearance over the whole file, and a give-up
(None) on everything that is not plain CSV."""

import io

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv
import pytest

from seminaive.kernels.csv_codes import code_csv, code_csv_parts, csv_values, line_parts


def _pyarrow_cells(data, n_cols):
    """Every cell as pyarrow reads it (all columns strings, no nulls), as a list of rows."""
    names = [f"c{j}" for j in range(n_cols)]
    table = pa_csv.read_csv(
        io.BytesIO(data),
        read_options=pa_csv.ReadOptions(column_names=names),
        convert_options=pa_csv.ConvertOptions(
            column_types={name: pa.string() for name in names}, strings_can_be_null=False,
            quoted_strings_can_be_null=False))
    return [list(row) for row in zip(*(table[name].to_pylist() for name in names),
                                     strict=True)]


def _decoded(result):
    codes, values = result
    return [[values[j][codes[i, j]].decode() for j in range(codes.shape[1])]
            for i in range(codes.shape[0])]


def _first_seen(column):
    seen = {}
    for v in column:
        seen.setdefault(v, len(seen))
    return seen


def _random_csv(rng, rows, n_cols, n_values, crlf=False, final_newline=True, long=False):
    pool = ["", "NA", "null", "N/A", "nan", "#N/A"] + [
        ("value_long_" * 3 if long and k % 2 else "v") + str(k) for k in range(n_values)]
    lines = [",".join(pool[rng.integers(len(pool))] for _ in range(n_cols))
             for _ in range(rows)]
    end = "\r\n" if crlf else "\n"
    text = end.join(lines) + (end if final_newline else "")
    return text.encode()


@pytest.mark.parametrize("crlf", [False, True])
@pytest.mark.parametrize("final_newline", [False, True])
@pytest.mark.parametrize("n_parts", [1, 2, 3, 7])
@pytest.mark.parametrize("long", [False, True])
def test_same_cells_as_pyarrow_and_first_seen_codes(crlf, final_newline, n_parts, long):
    rng = np.random.default_rng(n_parts + 10 * crlf + 100 * final_newline + 1000 * long)
    data = _random_csv(rng, 997, 5, 40, crlf, final_newline, long)
    got = code_csv(data, 5, n_parts=n_parts)
    assert got is not None
    cells = _pyarrow_cells(data, 5)
    assert _decoded(got) == cells
    codes, values = got
    for j in range(5):  # codes are the order of first appearance over the whole file
        seen = _first_seen(row[j] for row in cells)
        assert [v.decode() for v in values[j]] == list(seen)
        assert codes[:, j].tolist() == [seen[row[j]] for row in cells]


@pytest.mark.parametrize("n_parts", [1, 3])
def test_the_cache_of_short_fields_gives_the_table_codes(n_parts):
    """Fields of 0 to 9 bytes (those of at most 7 bytes looked up in the column's cache
    first), fields that differ only in their length (``a``, ``aa``, ...; ``v``, ``v0``),
    and columns of many more values than the cache's slots (fields that take each
    other's slot, again and again): the cells pyarrow reads and codes in order of first
    appearance."""
    from seminaive.kernels.csv_codes import CACHE_BITS

    rng = np.random.default_rng(n_parts)
    pool0 = ["a" * n for n in range(10)] + ["v", "v0", "v00", "0v", "00v"]
    pool1 = [f"{n:x}" for n in range(8 << CACHE_BITS)]  # 1-3 bytes, 8 a slot
    pool2 = [f"w{n}_{n % 7:07d}"[: 1 + n % 9] for n in range(400)]  # 1-9 bytes
    lines = [f"{pool0[rng.integers(len(pool0))]},{pool1[rng.integers(len(pool1))]},"
             f"{pool2[rng.integers(len(pool2))]}" for _ in range(6000)]
    data = ("\n".join(lines) + "\n").encode()
    got = code_csv(data, 3, n_parts=n_parts)
    assert got is not None
    cells = _pyarrow_cells(data, 3)
    assert _decoded(got) == cells
    codes, values = got
    for j in range(3):
        seen = _first_seen(row[j] for row in cells)
        assert [v.decode() for v in values[j]] == list(seen)
        assert codes[:, j].tolist() == [seen[row[j]] for row in cells]
    assert len(values[1]) > 4 << CACHE_BITS


def test_value_first_seen_late_and_many_values():
    rows = [f"v{i % 3},w{i}" for i in range(5000)] + ["late,w0"]
    data = "\n".join(rows).encode()
    codes, values = code_csv(data, 2, n_parts=4, max_values=8192)
    assert values[0] == [b"v0", b"v1", b"v2", b"late"]
    assert codes[-1, 0] == 3 and codes[-1, 1] == 0
    assert len(values[1]) == 5000
    assert code_csv(data, 2, n_parts=4, max_values=4000) is None  # too many values


def test_empty_lines_are_skipped_as_pyarrow_does():
    data = b"a,b\n\n\r\nc,d\n\n"
    assert _decoded(code_csv(data, 2, n_parts=2)) == _pyarrow_cells(data, 2)


@pytest.mark.parametrize("data", [
    b'a,"b"\n', b'a,b"c\n', b"a,b\rc,d\n", b"a,b,c\n", b"a\n", b"a,b\nc\n", b"a,b\nc,d,e"])
def test_gives_up_on_what_is_not_plain_csv(data):
    assert code_csv(data, 2, n_parts=2) is None


def test_line_parts_cut_after_line_ends():
    data = b"ab,c\nd,e\nfgh,i\nj,k"
    for n_parts in range(1, 8):
        parts = line_parts(data, n_parts)
        assert parts[0][0] == 0 and parts[-1][1] == len(data)
        for (_, e1), (s2, _) in zip(parts[:-1], parts[1:], strict=True):
            assert e1 == s2 and data[e1 - 1:e1] == b"\n"


@pytest.mark.parametrize("n_parts", [1, 2, 5])
def test_parts_of_a_memory_map_after_a_header(tmp_path, n_parts):
    """code_csv_parts on a memory-mapped file from after its header: each part's codes
    through its tables are the codes of the whole bytes, whatever the number of parts (a
    column of 300 values: parts coded again with larger tables)."""
    import mmap

    rng = np.random.default_rng(n_parts)
    body = _random_csv(rng, 1500, 3, 300, crlf=True)
    path = tmp_path / "data.csv"
    path.write_bytes(b"h0,h1,h2\r\n" + body)
    with open(path, "rb") as handle:
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    parts, values = code_csv_parts(data, 3, start=10, n_parts=n_parts)
    codes, expected = code_csv(body, 3, n_parts=1)
    assert values == expected
    assert len(parts) == n_parts
    whole = np.concatenate([np.stack([tables[j][part[:, j]] for j in range(3)], axis=1)
                            for part, tables in parts])
    np.testing.assert_array_equal(whole, codes)
    assert code_csv_parts(data, 3, start=10, n_parts=n_parts, max_values=200) is None


@pytest.mark.parametrize("n_parts", [1, 3])
def test_a_block_of_the_bytes_is_coded_as_those_bytes_alone(n_parts):
    """``start`` and ``end`` (a block of a file): the codes and values of the block's bytes
    alone, and line_parts' pieces within the block."""
    from seminaive.kernels.csv_codes import code_csv_parts

    rng = np.random.default_rng(41)
    data = b"h0,h1\n" + _random_csv(rng, 900, 2, 40, crlf=False)
    lo = data.find(b"\n", 1000) + 1
    hi = data.find(b"\n", 3000) + 1
    for a, b in line_parts(data, 4, lo, hi):
        assert lo <= a < b <= hi and data[b - 1:b] == b"\n"
    got = code_csv_parts(data, 2, start=lo, end=hi, n_parts=n_parts)
    alone = code_csv(data[lo:hi], 2, n_parts=1)
    parts, values = got
    assert values == alone[1]
    codes = np.concatenate([np.stack([t[c[:, j]] for j, t in enumerate(tables)], axis=1)
                            for c, tables in parts])
    np.testing.assert_array_equal(codes, alone[0])


@pytest.mark.parametrize("n_parts", [1, 2, 5])
@pytest.mark.parametrize("crlf, long", [(False, False), (True, True)])
def test_values_alone_are_those_of_the_full_coder(n_parts, crlf, long):
    """csv_values (no codes written) gives the values code_csv_parts gives, in the same
    order, and the number of rows its parts hold: a whole file, a block of it, a column
    of 300 values (parts split again with larger tables), empty lines; and gives up where
    it gives up (too many values, what is not plain CSV)."""
    from seminaive.kernels.csv_codes import csv_values

    rng = np.random.default_rng(7 + n_parts + 10 * crlf)
    body = _random_csv(rng, 1500, 3, 300, crlf=crlf, long=long)
    cut = body.find(b"\n", 2000) + 1
    data = b"h0,h1,h2\n" + body[:cut] + b"\n\n" + body[cut:]  # empty lines
    start = 9
    end = data.find(b"\n", 5000) + 1
    for lo, hi in ((start, None), (start, end), (end, None)):
        full = code_csv_parts(data, 3, start=lo, end=hi, n_parts=n_parts)
        parts, values = full
        assert csv_values(data, 3, start=lo, end=hi, n_parts=n_parts) == (
            values, sum(codes.shape[0] for codes, _ in parts))
        for few in (40, 200):
            assert (csv_values(data, 3, start=lo, end=hi, n_parts=n_parts, max_values=few)
                    is None) == (code_csv_parts(data, 3, start=lo, end=hi, n_parts=n_parts,
                                                max_values=few) is None)
    for bad in (b'a,"b"\n', b"a,b\rc,d\n", b"a,b,c\n", b"a,b\nc\n", b"a,b\nc,d,e"):
        assert code_csv_parts(bad, 2, n_parts=n_parts) is None
        assert csv_values(bad, 2, n_parts=n_parts) is None
    assert csv_values(b"", 2, n_parts=n_parts) == ([[], []], 0)


@pytest.mark.parametrize("n_parts", [1, 2, 3, 7])
def test_merged_values_against_a_dictionary_of_every_field(n_parts):
    """The parts' values merged in one kernel call (merge_part_values): each column's
    values in order of first appearance over the lines (a dictionary of every field, in
    Python), each field's code through its part's table its index there, whatever the
    number of parts; values of 0 to 12 bytes (keys of their bytes, and of their hash past
    8 bytes), values met in one part only, in several, and in a later part first; and the
    give-up exactly past ``max_values`` values of a column over the parts."""
    rng = np.random.default_rng(100 + n_parts)
    words = [b"", b"a", b"ab", b"abcdefg", b"abcdefgh", b"abcdefghi", b"abcdefghijkl",
             b"abcdefghijkm", b"x" * 9, b"y1", b"1y"]
    rows = []
    for i in range(600):
        late = [b"late%d" % (i // 50)] if i > 300 else []  # values first met in later parts
        rows.append([words[rng.integers(len(words))],
                     (words + late)[rng.integers(len(words) + len(late))],
                     b"%d" % rng.integers(40)])
    data = b"".join(b",".join(row) + b"\n" for row in rows)
    parts, values = code_csv_parts(data, 3, n_parts=n_parts)
    for col in range(3):
        assert values[col] == list(_first_seen(row[col] for row in rows))
    index = [_first_seen(row[col] for row in rows) for col in range(3)]
    got = np.concatenate([np.stack([tables[j][codes[:, j]] for j in range(3)], axis=1)
                          for codes, tables in parts])
    expected = np.array([[index[j][row[j]] for j in range(3)] for row in rows])
    np.testing.assert_array_equal(got, expected)
    many = b"".join(b"%d,x\n" % i for i in range(300))
    for limit, fits in ((299, False), (300, True)):
        assert (code_csv_parts(many, 2, n_parts=n_parts, max_values=limit) is not None) == fits
        assert (csv_values(many, 2, n_parts=n_parts, max_values=limit) is not None) == fits


@pytest.mark.parametrize("n_parts", [1, 3, 8])
def test_files_coded_in_one_batch_as_each_alone(n_parts):
    """code_csv_files (the parts of several buffers coded together on the threads): each
    buffer's codes and values those code_csv gives of its bytes alone (after a header,
    within ``start``/``end``, a column of 300 values coded again with larger tables, an
    empty buffer), and a buffer that is not plain CSV, or has too many values, given up
    alone (None) while the others are coded."""
    from seminaive.kernels.csv_codes import code_csv_files

    rng = np.random.default_rng(50 + n_parts)
    bodies = [_random_csv(rng, 1200, 3, 300, crlf=True), _random_csv(rng, 40, 3, 5),
              b"", _random_csv(rng, 2000, 3, 40, long=True),
              b'a,"b",c\n', b"a,b,c\nd,e\n"]
    datas = [b"h0,h1,h2\n" + body for body in bodies]
    ends = [None] * len(datas)
    ends[3] = datas[3].find(b"\n", 20000) + 1  # a block of the file
    got = code_csv_files(datas, 3, starts=[9] * len(datas), ends=ends, n_parts=n_parts)
    assert len(got) == len(datas)
    assert got[4] is None and got[5] is None
    for data, end, coded in zip(datas[:4], ends, got[:4], strict=False):
        alone = code_csv(data[9:end], 3, n_parts=1)
        parts, values = coded
        assert values == alone[1]
        if not parts or sum(c.shape[0] for c, _ in parts) == 0:
            assert alone[0].shape[0] == 0
            continue
        codes = np.concatenate([np.stack([t[c[:, j]] for j, t in enumerate(tables)], axis=1)
                                for c, tables in parts])
        np.testing.assert_array_equal(codes, alone[0])
    few = code_csv_files(datas[:2], 3, starts=[9, 9], n_parts=n_parts, max_values=200)
    assert few[0] is None and few[1] is not None  # 300 values: that buffer alone
    assert few[1][1] == got[1][1]
