"""Poker hands: the class rules checked on hand-made hands and against the known counts of
all 2,598,960 five-card hands; the dealer deals five distinct cards, uniformly."""

from itertools import combinations

import numpy as np
import pytest

from seminaive.datasets import POKER_HAND_CLASSES, make_poker_hand, poker_hand_class
from seminaive.exceptions import InputError

S, H, D, C = 1, 2, 3, 4  # suit codes
A, J, Q, K = 1, 11, 12, 13


def hand(*cards):
    return [v for card in cards for v in card]


HANDS = [
    (hand((H, 10), (H, J), (H, Q), (H, K), (H, A)), 9),
    (hand((S, A), (S, K), (S, 10), (S, Q), (S, J)), 9),  # any order
    (hand((C, 9), (C, 10), (C, J), (C, Q), (C, K)), 8),
    (hand((D, A), (D, 2), (D, 3), (D, 4), (D, 5)), 8),  # ace-low straight flush
    (hand((S, 7), (H, 7), (D, 7), (C, 7), (S, 2)), 7),
    (hand((S, K), (H, K), (D, K), (C, 3), (S, 3)), 6),
    (hand((H, 2), (H, 7), (H, 9), (H, J), (H, A)), 5),
    (hand((H, Q), (H, K), (H, A), (H, 2), (H, 3)), 5),  # no wrap round: a flush only
    (hand((S, 5), (H, 6), (D, 7), (C, 8), (S, 9)), 4),
    (hand((S, 10), (H, J), (D, Q), (C, K), (S, A)), 4),  # ace high
    (hand((S, A), (H, 2), (D, 3), (C, 4), (S, 5)), 4),  # ace low
    (hand((S, 4), (H, 4), (D, 4), (C, 9), (S, K)), 3),
    (hand((S, 4), (H, 4), (D, 9), (C, 9), (S, K)), 2),
    (hand((S, A), (H, A), (D, 9), (C, 8), (S, K)), 1),
    (hand((S, Q), (H, K), (D, A), (C, 2), (S, 3)), 0),  # no wrap round
    (hand((S, 2), (H, 3), (D, 4), (C, 5), (S, 7)), 0),
    (hand((S, J), (H, Q), (D, K), (C, A), (S, 9)), 0),
]


@pytest.mark.parametrize("cards,expected", HANDS)
def test_hand_made_hands(cards, expected):
    assert poker_hand_class([cards])[0] == expected, POKER_HAND_CLASSES[expected]


def test_all_hands_known_counts():
    # every 5-card hand once: the textbook counts of each class
    deck = np.arange(52)
    combos = np.array(list(combinations(deck, 5)), dtype=np.int64)
    assert len(combos) == 2_598_960
    X = np.empty((len(combos), 10), dtype=np.int64)
    X[:, 0::2] = combos // 13 + 1
    X[:, 1::2] = combos % 13 + 1
    counts = np.bincount(poker_hand_class(X), minlength=10)
    assert counts.tolist() == [1_302_540, 1_098_240, 123_552, 54_912, 10_200,
                               5_108, 3_744, 624, 36, 4]


def test_deal_is_distinct_uniform_and_reproducible():
    X, y = make_poker_hand(60_000, random_state=3, chunk_size=7_000)
    X2, y2 = make_poker_hand(60_000, random_state=3, chunk_size=7_000)
    assert X.dtype == np.uint8 and X.shape == (60_000, 10)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)
    assert np.array_equal(poker_hand_class(X), y)
    cards = (X[:, 0::2].astype(int) - 1) * 13 + X[:, 1::2] - 1
    assert np.all(np.diff(np.sort(cards, axis=1), axis=1) > 0)
    # each card in about 5/52 of hands; binomial sd ~ 0.0012
    freq = np.bincount(cards.ravel(), minlength=52) / len(X)
    assert np.all(np.abs(freq - 5 / 52) < 0.006), freq
    # class shares near the exact ones (nothing 0.5012, one pair 0.4226)
    share = np.bincount(y, minlength=10) / len(y)
    assert abs(share[0] - 0.5012) < 0.01 and abs(share[1] - 0.4226) < 0.01


def test_bad_hands():
    with pytest.raises(InputError, match="10 columns"):
        poker_hand_class([[1, 2, 3]])
    with pytest.raises(InputError, match="ranks in 1-13"):
        poker_hand_class([hand((S, 0), (H, 3), (D, 4), (C, 5), (S, 7))])
    with pytest.raises(InputError, match="same card twice"):
        poker_hand_class([hand((S, 2), (S, 2), (D, 4), (C, 5), (S, 7))])
    assert make_poker_hand(0)[0].shape == (0, 10)
