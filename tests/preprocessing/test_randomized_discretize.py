"""RandomizedMDLDiscretizer (Zhang, Petitjean & Buntine 2020): cuts drawn in proportion to
their Fayyad & Irani MDL margin."""

import numpy as np
import pytest

from seminaive.exceptions import InputError
from seminaive.preprocessing import MDLDiscretizer, RandomizedMDLDiscretizer
from seminaive.preprocessing.discretize import (
    _fayyad_irani_accepts,
    _sorted_groups,
    draw_index,
    mdl_margins,
)


def _nlogn(n):
    v = np.arange(n + 1, dtype=np.float64)
    return v * np.log(np.maximum(v, 1.0))


def _top_margins(x, y, n_classes=2):
    values, cum, cum_rows = _sorted_groups(np.asarray(x, float), np.asarray(y), n_classes)
    return mdl_margins(cum, cum_rows, 0, values.size, _nlogn(int(cum_rows[-1])))


class _FixedDraws(np.random.RandomState):
    """A RandomState whose uniform draws are given in advance."""

    def __init__(self, draws):
        super().__init__(0)
        self.draws = list(draws)

    def random_sample(self, size=None):
        return self.draws.pop(0)


# three values, both cuts pass MDL, neither half can be split again:
# value 1: 5 rows of class 0; value 2: 5 of class 0, 10 of class 1; value 3: 15 of class 1
_X3 = np.array([1.0] * 5 + [2.0] * 15 + [3.0] * 15)
_Y3 = np.array([0] * 10 + [1] * 25)


def test_margins_match_the_mdl_rule_on_every_candidate():
    rng = np.random.default_rng(0)
    x = np.round(rng.normal(size=400), 1)
    y = (x + rng.normal(scale=0.8, size=400) > 0).astype(int) + (x > 1.2)
    values, cum, cum_rows = _sorted_groups(x, y, 3)
    nlogn = _nlogn(400)
    for a, b in [(0, values.size), (3, 25), (10, values.size - 4)]:
        gain, margin = mdl_margins(cum, cum_rows, a, b, nlogn)
        prior = cum[:, b] - cum[:, a]
        n = int(cum_rows[b] - cum_rows[a])
        for i in range(b - a - 1):
            left = cum[:, a + i + 1] - cum[:, a]
            if abs(margin[i]) > 1e-12:
                assert (margin[i] > 0) == _fayyad_irani_accepts(prior, left, prior - left, n,
                                                                nlogn)
        # the gain of the best cut is MDLDiscretizer's least entropy
        assert np.argmax(gain) == np.argmin(-gain)


def test_one_passing_cut_is_always_returned():
    x = np.array([[1.0], [2.0], [3.0], [4.0], [11.0], [12.0], [13.0], [14.0]])
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    _, margin = _top_margins(x[:, 0], y)
    assert (margin > 0).sum() == 1 and margin[3] > 0
    for seed in range(20):
        assert RandomizedMDLDiscretizer(random_state=seed).fit(x, y).cut_points_[0].tolist() \
            == [7.5]


def test_draw_probability_is_the_margin_ratio():
    _, margin = _top_margins(_X3, _Y3)
    assert (margin > 0).all() and margin.size == 2
    share = margin[0] / margin.sum()
    X = _X3.reshape(-1, 1)
    # exact: the uniform draw u picks the first cut iff u < m1 / (m1 + m2)
    for u, cut in [(share - 1e-9, 1.5), (share + 1e-9, 2.5), (0.0, 1.5), (0.999, 2.5)]:
        disc = RandomizedMDLDiscretizer(random_state=_FixedDraws([u])).fit(X, _Y3)
        assert disc.cut_points_[0].tolist() == [cut]
    # and over seeds (binomial, 5 standard deviations)
    firsts = [RandomizedMDLDiscretizer(random_state=s).fit(X, _Y3).cut_points_[0][0] == 1.5
              for s in range(1500)]
    assert abs(np.mean(firsts) - share) < 5 * np.sqrt(share * (1 - share) / 1500)


def test_no_passing_cut_draws_one_by_information_gain():
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    y = np.array([0, 1, 0, 1, 1, 0])
    gain, margin = _top_margins(x, y)
    assert not (margin > 0).any()
    assert MDLDiscretizer().fit(x.reshape(-1, 1), y).cut_points_[0].size == 0
    cdf = np.cumsum(np.maximum(gain, 0)) / np.maximum(gain, 0).sum()
    for i in np.flatnonzero(gain > 0):
        u = (cdf[i] + (cdf[i - 1] if i else 0.0)) / 2  # inside candidate i's interval
        disc = RandomizedMDLDiscretizer(random_state=_FixedDraws([u])).fit(
            x.reshape(-1, 1), y)
        assert disc.cut_points_[0].tolist() == [i + 1.5]
    # a column with one class has no gain anywhere: no cut
    assert RandomizedMDLDiscretizer(random_state=0).fit(
        x.reshape(-1, 1), np.zeros(6, int)).cut_points_[0].size == 0


def test_draw_index():
    w = np.array([0.0, 1.0, 3.0])
    assert [draw_index(w, u) for u in (0.0, 0.2499, 0.25, 0.999)] == [1, 1, 2, 2]


@pytest.fixture(scope="module")
def numeric():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(scale=0.7, size=3000) > 0.6).astype(int)
    return X, y


def test_seed_determinism_draws_and_union(numeric):
    X, y = numeric
    a = RandomizedMDLDiscretizer(n_draws=4, random_state=7).fit(X, y)
    b = RandomizedMDLDiscretizer(n_draws=4, random_state=7).fit(X, y)
    for ca, cb in zip(a.cut_points_, b.cut_points_, strict=True):
        np.testing.assert_array_equal(ca, cb)
    assert len(a.draw_cut_points_) == 4
    for j in range(X.shape[1]):
        draws = [d[j] for d in a.draw_cut_points_]
        np.testing.assert_array_equal(a.cut_points_[j], np.unique(np.concatenate(draws)))
        assert all(d.size >= 1 for d in draws)  # every column gets at least one cut
    # the informative columns get different cuts in different draws
    assert any(not np.array_equal(a.draw_cut_points_[0][0], d[0])
               for d in a.draw_cut_points_[1:])
    c = RandomizedMDLDiscretizer(n_draws=4, random_state=8).fit(X, y)
    assert any(not np.array_equal(p, q) for p, q in zip(a.cut_points_, c.cut_points_,
                                                         strict=True))
    np.testing.assert_array_equal(a.transform(X), np.column_stack(
        [np.searchsorted(a.cut_points_[j], X[:, j]) for j in range(X.shape[1])]))


def test_bad_n_draws(numeric):
    X, y = numeric
    with pytest.raises(InputError, match="n_draws"):
        RandomizedMDLDiscretizer(n_draws=0).fit(X, y)
