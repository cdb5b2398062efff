"""The hash pass over Arrow string buffers against pyarrow's own dictionary encoding."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from seminaive.preprocessing._strings import dictionary_encode, hash_chunks


def _strings(rng, n, values, null_rate=0.0):
    picks = rng.integers(0, len(values), n)
    out = [values[p] for p in picks]
    for i in np.flatnonzero(rng.random(n) < null_rate):
        out[i] = None
    return out


VALUES = ["v0", "v1", "", "a", "a\x00", "abcdefgh", "abcdefghi", "abcdefghij" * 3,
          "abcdefghij" * 3 + "x", "é", "日本語のテキスト", "ab", "ba"]


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string()])
@pytest.mark.parametrize("null_rate", [0.0, 0.2])
def test_codes_are_first_appearance_indices(kind, null_rate):
    rng = np.random.default_rng(1)
    data = _strings(rng, 5000, VALUES, null_rate)
    arr = pa.array(data, type=kind).slice(7, 4000)  # an offset into the buffers
    out = np.empty(len(arr), dtype=np.int32)
    (values,) = hash_chunks([arr], [out])
    expected = pc.dictionary_encode(arr)  # first-appearance order too
    assert values.to_pylist() == expected.dictionary.to_pylist()
    np.testing.assert_array_equal(out, expected.indices.fill_null(-1).to_numpy())
    by_hand = {}
    for i, v in enumerate(arr.to_pylist()):  # brute force
        assert out[i] == (-1 if v is None else by_hand.setdefault(v, len(by_hand)))


def test_too_many_values_give_up_and_fall_back():
    arr = pa.array([f"value{i}" for i in range(300)])
    out = np.empty(len(arr), dtype=np.int32)
    assert hash_chunks([arr], [out], max_values=100) == [None]
    (encoded,) = dictionary_encode([pa.chunked_array([arr])])
    # more values than the hash pass takes (MAX_HASHED_VALUES is larger here): same values
    assert encoded.chunk(0).dictionary.take(encoded.chunk(0).indices).equals(arr)


def test_dictionary_encode_columns_and_chunks():
    rng = np.random.default_rng(2)
    strings = pa.chunked_array([pa.array(_strings(rng, 300, VALUES, 0.1)),
                                pa.array(_strings(rng, 200, VALUES[:3], 0.0)),
                                pa.array([], type=pa.string())])
    numbers = pa.chunked_array([pa.array(np.arange(500.0))])
    a, b = dictionary_encode([strings, numbers])
    assert b is numbers
    assert pa.types.is_dictionary(a.type) and a.num_chunks == 1  # one dictionary a column
    assert a.cast(pa.string()).to_pylist() == strings.to_pylist()


def test_null_strings_made_nulls_and_left_out_of_the_dictionary():
    strings = pa.chunked_array([pa.array(["a", "NA", "", None, "b"]), pa.array(["b", "", "a"])])
    for give_up in (False, True):
        (a,) = dictionary_encode([strings], give_up=give_up, null_values={"NA", ""})
        assert a.chunk(0).dictionary.to_pylist() == ["a", "b"]
        assert a.cast(pa.string()).to_pylist() == ["a", None, None, None, "b", "b", None, "a"]


def test_long_columns_keep_their_chunks_each_with_its_dictionary(monkeypatch):
    """A column of at least CHUNKED_ROWS rows is coded chunk by chunk (no copy of its
    strings): each chunk's dictionary lists its own values in order of first appearance,
    and the column reads back as it was, the null strings made nulls."""
    import seminaive.preprocessing._strings as strings

    monkeypatch.setattr(strings, "CHUNKED_ROWS", 4)
    column = pa.chunked_array([pa.array(["b", "NA", "a", "b"]), pa.array([], type=pa.string()),
                               pa.array(["c", None, "a"]), pa.array(["NA"])])
    short = pa.chunked_array([pa.array(["x"]), pa.array(["y", "x"])])  # combined: 3 rows
    a, b = strings.dictionary_encode([column, short], null_values={"NA"})
    assert a.num_chunks == 3  # the empty chunk left out
    assert [c.dictionary.to_pylist() for c in a.chunks] == [["b", "a"], ["c", "a"], []]
    assert [c.indices.to_pylist() for c in a.chunks] == [[0, None, 1, 0], [0, None, 1],
                                                         [None]]
    assert a.cast(pa.string()).to_pylist() == ["b", None, "a", "b", "c", None, "a", None]
    assert b.num_chunks == 1 and b.chunk(0).dictionary.to_pylist() == ["x", "y"]
    many = pa.chunked_array([pa.array(["v0"] * 4), pa.array([f"w{i}" for i in range(5)])])
    monkeypatch.setattr(strings, "MAX_HASHED_VALUES", 3)
    assert strings.dictionary_encode([many], give_up=True) == [None]
    (coded,) = strings.dictionary_encode([many])  # pyarrow's encoding, chunk by chunk
    assert coded.cast(pa.string()).to_pylist() == many.to_pylist()
