"""LED-24 (7 noisy segments + 17 irrelevant bits, 10 % noise): with 1,000 training rows NB,
AODE and A2DE all come close to the Bayes error (about 0.26; Webb et al. (2012) report zero-one loss
0.2603 / 0.2601 / 0.2603)."""

import numpy as np
import pytest

from seminaive import A2DE, AODE, NaiveBayes
from seminaive.datasets import led_bayes_error, make_led

SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def led_sets():
    sets = []
    for seed in SEEDS:
        X, y = make_led(1000, n_irrelevant=17, noise=0.1, random_state=seed)
        Xt, yt = make_led(20_000, n_irrelevant=17, noise=0.1, random_state=1000 + seed)
        assert X.shape == (1000, 24) and Xt.shape == (20_000, 24)
        sets.append((X, y, Xt, yt))
    return sets


def test_bayes_error():
    assert led_bayes_error(0.1) == pytest.approx(0.26, abs=0.001)


@pytest.mark.parametrize("cls", [NaiveBayes, AODE, A2DE], ids=lambda c: c.__name__)
def test_led24_zero_one_loss(cls, led_sets):
    losses = []
    for X, y, Xt, yt in led_sets:
        model = cls(categorical_features="all").fit(X, y)  # default: m-estimate, m = 1
        losses.append(float(np.mean(model.predict(Xt) != yt)))
    # each seed, and the mean, within the band around the Bayes error
    assert all(0.25 <= loss <= 0.29 for loss in losses), losses
    assert 0.25 <= np.mean(losses) <= 0.29, losses
