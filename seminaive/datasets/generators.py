"""Synthetic data generators with known Bayes-optimal error.

``make_led`` and ``make_waveform`` are the classic generators of Breiman et al. (1984),
*Classification and Regression Trees*; ``RandomBayesianNetwork`` draws a random discrete
Bayesian network classifier whose exact posterior (hence Bayes error) is available;
``make_poker_hand`` deals poker hands whose class is an exact function of the five cards
(Bayes error 0), in the layout of the UCI poker-hand data (Cattral & Oppacher 2007).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import logsumexp

from seminaive.exceptions import InputError

__all__ = [
    "LED_SEGMENTS",
    "make_led",
    "led_bayes_error",
    "make_waveform",
    "RandomBayesianNetwork",
    "make_random_bn",
    "POKER_HAND_CLASSES",
    "poker_hand_class",
    "make_poker_hand",
]

#: Segments lit for each digit 0-9, in the order of the UCI LED generator:
#: top, upper-left, upper-right, middle, lower-left, lower-right, bottom.
LED_SEGMENTS = np.array(
    [
        [1, 1, 1, 0, 1, 1, 1],  # 0
        [0, 0, 1, 0, 0, 1, 0],  # 1
        [1, 0, 1, 1, 1, 0, 1],  # 2
        [1, 0, 1, 1, 0, 1, 1],  # 3
        [0, 1, 1, 1, 0, 1, 0],  # 4
        [1, 1, 0, 1, 0, 1, 1],  # 5
        [1, 1, 0, 1, 1, 1, 1],  # 6
        [1, 0, 1, 0, 0, 1, 0],  # 7
        [1, 1, 1, 1, 1, 1, 1],  # 8
        [1, 1, 1, 1, 0, 1, 1],  # 9
    ],
    dtype=np.uint8,
)
LED_SEGMENTS.setflags(write=False)

_DEFAULT_CHUNK = 1_000_000


def _rng(random_state) -> np.random.Generator:
    """Return a ``np.random.Generator`` from ``None``, an int or a Generator."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (int, np.integer, np.random.SeedSequence)):
        return np.random.default_rng(random_state)
    raise TypeError(
        f"random_state must be None, an int or a numpy Generator, got {type(random_state)!r}"
    )


def _check_n(n_samples) -> int:
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)):
        raise TypeError(f"n_samples must be an int, got {type(n_samples)!r}")
    if n_samples < 0:
        raise ValueError(f"n_samples must be >= 0, got {n_samples}")
    return int(n_samples)


def _check_noise(noise) -> float:
    noise = float(noise)
    if not 0.0 <= noise <= 1.0:
        raise ValueError(f"noise must be in [0, 1], got {noise}")
    return noise


# --------------------------------------------------------------------------- LED


def make_led(n_samples, n_irrelevant=17, noise=0.1, random_state=None):
    """Generate the LED display problem (Breiman et al., 1984).

    Parameters
    ----------
    n_samples : int
        Number of rows.
    n_irrelevant : int, default=17
        Number of extra uniform random binary attributes (17 gives LED-24, 0 gives LED-7).
    noise : float, default=0.1
        Probability that each of the 7 segments is flipped, independently.
    random_state : None, int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    X : ndarray of shape (n_samples, 7 + n_irrelevant), dtype uint8
        Segment values (columns 0-6, see ``LED_SEGMENTS``) then irrelevant bits, all 0/1.
    y : ndarray of shape (n_samples,), dtype int64
        Digit 0-9, uniform.

    References
    ----------
    Breiman, L., Friedman, J. H., Olshen, R. A. & Stone, C. J. (1984). *Classification and
    Regression Trees*. Wadsworth.

    Examples
    --------
    >>> from seminaive.datasets import make_led
    >>> X, y = make_led(1000, random_state=0)
    >>> X.shape, int(X.max()), sorted(set(y.tolist())) == list(range(10))
    ((1000, 24), 1, True)
    """
    n = _check_n(n_samples)
    noise = _check_noise(noise)
    n_irrelevant = int(n_irrelevant)
    if n_irrelevant < 0:
        raise ValueError(f"n_irrelevant must be >= 0, got {n_irrelevant}")
    rng = _rng(random_state)
    y = rng.integers(0, 10, size=n, dtype=np.int64)
    X = np.empty((n, 7 + n_irrelevant), dtype=np.uint8)
    flips = rng.random((n, 7)) < noise
    X[:, :7] = LED_SEGMENTS[y] ^ flips
    if n_irrelevant:
        X[:, 7:] = rng.integers(0, 2, size=(n, n_irrelevant), dtype=np.uint8)
    return X, y


def led_bayes_error(noise=0.1):
    """Exact Bayes-optimal error of the LED problem.

    Enumerates the 128 segment patterns; irrelevant attributes do not change it.

    Parameters
    ----------
    noise : float, default=0.1
        Segment flip probability.

    Returns
    -------
    float
        ``1 - sum_x max_d P(d, x)`` (about 0.26 for ``noise=0.1``).

    Examples
    --------
    >>> from seminaive.datasets import led_bayes_error
    >>> round(led_bayes_error(0.1), 4)
    0.26
    >>> led_bayes_error(0.0)
    0.0
    """
    noise = _check_noise(noise)
    patterns = ((np.arange(128)[:, None] >> np.arange(7)) & 1).astype(np.uint8)  # (128, 7)
    hamming = (patterns[:, None, :] != LED_SEGMENTS[None, :, :]).sum(axis=2)  # (128, 10)
    joint = 0.1 * noise**hamming * (1.0 - noise) ** (7 - hamming)
    return float(1.0 - joint.max(axis=1).sum())


# ---------------------------------------------------------------------- waveform


def _waveform_bases():
    m = np.arange(1, 22)
    h1 = np.maximum(6 - np.abs(m - 11), 0).astype(float)
    h2 = np.maximum(6 - np.abs(m - 15), 0).astype(float)  # h1(m - 4)
    h3 = np.maximum(6 - np.abs(m - 7), 0).astype(float)  # h1(m + 4)
    return h1, h2, h3


def make_waveform(n_samples, n_features=21, noise=1.0, random_state=None):
    """Generate Breiman's waveform problem (Breiman et al., 1984).

    Class ``c`` (uniform on 0, 1, 2) is a random convex combination ``u*a + (1-u)*b`` of two
    of the triangular base waves ``h1, h2, h3`` (pairs (h1,h2), (h1,h3), (h2,h3)), with
    ``u ~ U(0, 1)``, plus Gaussian noise of standard deviation ``noise`` on each of the 21
    attributes.

    Parameters
    ----------
    n_samples : int
        Number of rows.
    n_features : int, default=21
        At least 21; attributes beyond the 21st are pure N(0, 1) noise (40 gives
        waveform-+noise).
    noise : float, default=1.0
        Standard deviation of the noise added to the 21 wave attributes.
    random_state : None, int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64
    y : ndarray of shape (n_samples,), dtype int64

    Examples
    --------
    >>> from seminaive.datasets import make_waveform
    >>> X, y = make_waveform(300, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((300, 21), [0, 1, 2])
    """
    n = _check_n(n_samples)
    n_features = int(n_features)
    if n_features < 21:
        raise ValueError(f"n_features must be >= 21, got {n_features}")
    noise = float(noise)
    if noise < 0:
        raise ValueError(f"noise must be >= 0, got {noise}")
    rng = _rng(random_state)
    h1, h2, h3 = _waveform_bases()
    first = np.stack([h1, h1, h2])
    second = np.stack([h2, h3, h3])
    y = rng.integers(0, 3, size=n, dtype=np.int64)
    u = rng.random(n)[:, None]
    X = np.empty((n, n_features))
    X[:, :21] = u * first[y] + (1.0 - u) * second[y] + noise * rng.standard_normal((n, 21))
    if n_features > 21:
        X[:, 21:] = rng.standard_normal((n, n_features - 21))
    return X, y


# ------------------------------------------------------------ Bayesian network

_LINEAR_MAX = 7  # scan up to 7 thresholds (8 values) linearly, bisect above


def _thresholds(p):
    """Inverse-CDF thresholds (rows, v-1) of probability rows ``p`` (rows, v).

    Dividing by the row total makes the thresholds of zero-probability trailing values
    exactly 1.0, so ``u`` in [0, 1) can never select them.
    """
    cum = np.cumsum(p, axis=1)
    return np.ascontiguousarray(cum[:, :-1] / cum[:, -1:])


def _draw_codes(cum, idx, u):
    """Inverse-CDF draw: count the thresholds of CPT row ``idx[r]`` that are <= ``u[r]``.

    ``cum`` is a list of v-1 threshold arrays (one per column, each indexed by CPT row)
    for a linear scan, or a (rows, v-1) array of non-decreasing rows for a vectorised
    bisection. Returns uint8 codes in 0 .. v-1.
    """
    if isinstance(cum, list):
        code = np.zeros(u.shape[0], dtype=np.uint8)
        for col in cum:
            code += u >= col[idx]
        return code
    n_thr = cum.shape[1]
    flat = cum.ravel()
    base = idx * n_thr - 1
    code = np.zeros(u.shape[0], dtype=np.int64)
    step = 1 << (n_thr.bit_length() - 1)
    while step:  # largest code with cum[idx, code - 1] <= u, one bit at a time
        cand = code + step
        ok = (cand <= n_thr) & (u >= flat[base + np.minimum(cand, n_thr)])
        code += ok * step
        step >>= 1
    return code.astype(np.uint8)


class RandomBayesianNetwork:
    """A random discrete Bayesian network classifier with known posterior.

    The class ``Y`` is the root and a parent of every attribute. Attribute ``i`` also has
    ``r ~ U{0, ..., min(max_parents, i)}`` parents drawn without replacement among
    attributes ``0 .. i-1``. Every conditional probability table (CPT) row is drawn from a
    symmetric Dirichlet(``concentration``).

    Parameters
    ----------
    n_attributes : int, default=20
        Number of attributes.
    n_values : int or sequence of int, default=4
        Number of values of each attribute (2-256), shared or per attribute.
    n_classes : int, default=2
        Number of classes (>= 2).
    max_parents : int, default=2
        Maximum number of attribute parents (besides ``Y``).
    concentration : float, default=1.0
        Symmetric Dirichlet parameter; small values give near-deterministic CPTs.
    random_state : None, int or numpy.random.Generator
        Seed or generator for the structure, the CPTs and, by default, for ``sample``.

    Attributes
    ----------
    n_values_ : ndarray of shape (n_attributes,), dtype int64
        Cardinality of each attribute.
    parents_ : list of ndarray of int64
        Attribute parents of each attribute (sorted; ``Y`` is implicit).
    class_prior_ : ndarray of shape (n_classes,)
        P(Y).
    cpts_ : list of ndarray
        ``cpts_[i][y, x_p1, ..., x_pr, x_i] = P(x_i | y, x_p1, ..., x_pr)`` with parents in
        the order of ``parents_[i]``.

    Examples
    --------
    >>> from seminaive import AODE
    >>> from seminaive.datasets import RandomBayesianNetwork
    >>> net = RandomBayesianNetwork(n_attributes=8, n_values=3, random_state=0)
    >>> X, y = net.sample(2000, random_state=1)
    >>> X_test, y_test = net.sample(1000, random_state=2)
    >>> model = AODE(categorical_features="all").fit(X, y)
    >>> bool((model.predict(X_test) != y_test).mean() >= net.bayes_error(X_test) - 0.05)
    True
    """

    def __init__(
        self,
        n_attributes=20,
        n_values=4,
        n_classes=2,
        max_parents=2,
        concentration=1.0,
        random_state=None,
    ):
        n_attributes = int(n_attributes)
        if n_attributes < 1:
            raise ValueError(f"n_attributes must be >= 1, got {n_attributes}")
        if isinstance(n_values, Sequence | np.ndarray):
            card = np.asarray(n_values, dtype=np.int64)
            if card.shape != (n_attributes,):
                raise ValueError(
                    f"n_values has {card.size} entries but n_attributes is {n_attributes}"
                )
        else:
            card = np.full(n_attributes, int(n_values), dtype=np.int64)
        if card.min() < 2 or card.max() > 256:
            raise ValueError("every attribute must have between 2 and 256 values")
        n_classes = int(n_classes)
        if n_classes < 2:
            raise ValueError(f"n_classes must be >= 2, got {n_classes}")
        max_parents = int(max_parents)
        if max_parents < 0:
            raise ValueError(f"max_parents must be >= 0, got {max_parents}")
        concentration = float(concentration)
        if not concentration > 0:
            raise ValueError(f"concentration must be > 0, got {concentration}")

        self.n_attributes = n_attributes
        self.n_values = n_values
        self.n_classes = n_classes
        self.max_parents = max_parents
        self.concentration = concentration
        self.random_state = random_state

        rng = _rng(random_state)
        self.n_values_ = card
        self.class_prior_ = rng.dirichlet(np.full(n_classes, concentration))
        self.parents_ = []
        self.cpts_ = []
        for i in range(n_attributes):
            r = int(rng.integers(0, min(max_parents, i) + 1))
            parents = np.sort(rng.choice(i, size=r, replace=False)).astype(np.int64)
            shape = (n_classes, *card[parents].tolist(), int(card[i]))
            n_rows = int(np.prod(shape[:-1]))
            cpt = rng.dirichlet(np.full(int(card[i]), concentration), size=n_rows)
            self.parents_.append(parents)
            self.cpts_.append(cpt.reshape(shape))
        # Generator for sample(random_state=None): reproducible given the constructor seed.
        self._sample_rng = np.random.default_rng(rng.integers(0, 2**63))

    # -- helpers ---------------------------------------------------------------------

    def _config_strides(self, i):
        """Mixed-radix strides of (y, parents...) in the flattened CPT rows of attribute i."""
        dims = [self.n_classes, *self.n_values_[self.parents_[i]].tolist()]
        strides = np.ones(len(dims), dtype=np.int64)
        for j in range(len(dims) - 2, -1, -1):
            strides[j] = strides[j + 1] * dims[j + 1]
        return strides  # strides[0] for y, strides[1:] for the parents

    def _check_X(self, X):
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n_attributes:
            raise InputError(f"X must have shape (n, {self.n_attributes}), got {X.shape}")
        if X.size and not np.issubdtype(X.dtype, np.integer):
            if not np.all(np.equal(np.mod(X, 1), 0)):
                raise InputError("X must hold integer value codes")
        X = X.astype(np.int64, copy=False)
        if X.size and (X.min() < 0 or np.any(X.max(axis=0) >= self.n_values_)):
            raise InputError("X holds a code outside 0 .. n_values_[i] - 1")
        return X

    # -- sampling --------------------------------------------------------------------

    def sample(self, n_samples, random_state=None, chunk_size=_DEFAULT_CHUNK):
        """Draw rows by ancestral sampling (vectorised, in chunks).

        Parameters
        ----------
        n_samples : int
            Number of rows.
        random_state : None, int or numpy.random.Generator
            Seed or generator; ``None`` continues a generator seeded by the constructor's
            ``random_state`` (so a seeded network gives a reproducible sequence of samples).
        chunk_size : int, default=1_000_000
            Rows generated at a time (bounds temporary memory).

        Returns
        -------
        X : ndarray of shape (n_samples, n_attributes), dtype uint8
            Value codes.
        y : ndarray of shape (n_samples,), dtype int64
            Class codes.
        """
        n = _check_n(n_samples)
        rng = self._sample_rng if random_state is None else _rng(random_state)
        chunk_size = max(1, int(chunk_size))
        a = self.n_attributes
        X = np.empty((n, a), dtype=np.uint8)
        y = np.empty(n, dtype=np.int64)
        prior_cum = _thresholds(self.class_prior_[None, :])[0]
        tables = []  # (strides, cumulative CPT rows without the last column)
        for i in range(a):
            cpt = self.cpts_[i]
            flat = cpt.reshape(-1, cpt.shape[-1])
            cum = _thresholds(flat)  # (rows, v-1)
            if cum.shape[1] <= _LINEAR_MAX:
                cum = [np.ascontiguousarray(c) for c in cum.T]
            tables.append((self._config_strides(i), cum))
        block = np.empty((a, min(chunk_size, max(n, 1))), dtype=np.uint8)
        for start in range(0, n, chunk_size):
            stop = min(start + chunk_size, n)
            m = stop - start
            u = rng.random(m)
            yc = np.searchsorted(prior_cum, u, side="right").astype(np.int64)
            y[start:stop] = yc
            cols = block[:, :m]
            for i in range(a):
                strides, cum = tables[i]
                idx = yc * strides[0]
                for p, s in zip(self.parents_[i], strides[1:], strict=True):
                    idx += cols[p].astype(np.int64) * s
                cols[i] = _draw_codes(cum, idx, rng.random(m))
            X[start:stop] = cols.T
        return X, y

    # -- exact inference ----------------------------------------------------------------

    def log_joint(self, X):
        """Exact ``log P(y, x)`` for every class.

        Parameters
        ----------
        X : array-like of shape (n, n_attributes)
            Integer value codes.

        Returns
        -------
        ndarray of shape (n, n_classes)
        """
        X = self._check_X(X)
        n = X.shape[0]
        with np.errstate(divide="ignore"):
            out = np.tile(np.log(self.class_prior_), (n, 1))
            for i in range(self.n_attributes):
                cpt = self.cpts_[i]
                logt = np.log(cpt.reshape(self.n_classes, -1, cpt.shape[-1]))
                strides = self._config_strides(i)
                pconf = np.zeros(n, dtype=np.int64)
                for p, s in zip(self.parents_[i], strides[1:], strict=True):
                    pconf += X[:, p] * s
                out += logt[:, pconf, X[:, i]].T
        return out

    def predict_proba(self, X):
        """Exact posterior ``P(y | x)``.

        Rows of probability zero under every class (possible only if a CPT entry underflowed
        to 0) get the uniform distribution.

        Parameters
        ----------
        X : array-like of shape (n, n_attributes)
            Integer value codes.

        Returns
        -------
        ndarray of shape (n, n_classes)
            Rows sum to 1.
        """
        lj = self.log_joint(X)
        norm = logsumexp(lj, axis=1, keepdims=True)
        impossible = ~np.isfinite(norm[:, 0])
        lj[impossible] = 0.0
        norm[impossible] = np.log(self.n_classes)
        return np.exp(lj - norm)

    def predict(self, X):
        """Bayes-optimal class codes ``argmax_y P(y | x)``.

        Parameters
        ----------
        X : array-like of shape (n, n_attributes)
            Integer value codes.

        Returns
        -------
        numpy.ndarray of shape (n,)
        """
        return np.argmax(self.log_joint(X), axis=1).astype(np.int64)

    def bayes_error(self, X, y=None):
        """Bayes-optimal error on the rows of ``X``.

        Parameters
        ----------
        X : array-like of shape (n, n_attributes)
            Integer value codes.
        y : array-like of shape (n,), optional
            True class codes.

        Returns
        -------
        float or tuple of (float, float)
            The expected error ``mean(1 - max_y P(y | x))``; if ``y`` is given, the tuple
            ``(expected_error, empirical_error)`` where ``empirical_error`` is the error rate
            of the Bayes-optimal predictions against ``y``.
        """
        proba = self.predict_proba(X)
        expected = float(np.mean(1.0 - proba.max(axis=1))) if len(proba) else float("nan")
        if y is None:
            return expected
        y = np.asarray(y)
        if y.shape != (proba.shape[0],):
            raise InputError(f"y must have shape ({proba.shape[0]},), got {y.shape}")
        empirical = float(np.mean(proba.argmax(axis=1) != y)) if len(y) else float("nan")
        return expected, empirical

    def __repr__(self):
        return (
            f"RandomBayesianNetwork(n_attributes={self.n_attributes}, "
            f"n_values={self.n_values!r}, n_classes={self.n_classes}, "
            f"max_parents={self.max_parents}, concentration={self.concentration}, "
            f"random_state={self.random_state!r})"
        )


def make_random_bn(
    n_samples,
    n_attributes=20,
    n_values=4,
    n_classes=2,
    max_parents=2,
    concentration=1.0,
    random_state=None,
):
    """Draw a ``RandomBayesianNetwork`` and sample from it.

    Parameters
    ----------
    n_samples : int
        Number of rows.
    n_attributes : int, default=20
        Number of attributes (see ``RandomBayesianNetwork``).
    n_values : int or sequence of int, default=4
        Number of values of each attribute (2-256), shared or per attribute.
    n_classes : int, default=2
        Number of classes (>= 2).
    max_parents : int, default=2
        Maximum number of attribute parents (besides ``Y``).
    concentration : float, default=1.0
        Symmetric Dirichlet parameter of the conditional probability tables.
    random_state : None, int or numpy.random.Generator
        Seed or generator for both the network and the sample.

    Returns
    -------
    X : ndarray of shape (n_samples, n_attributes), dtype uint8
    y : ndarray of shape (n_samples,), dtype int64
    network : RandomBayesianNetwork

    Examples
    --------
    >>> from seminaive.datasets import make_random_bn
    >>> X, y, network = make_random_bn(500, n_attributes=5, random_state=0)
    >>> X.shape, int(X.max()) <= 3, 0 <= network.bayes_error(X) <= 0.5
    ((500, 5), True, True)
    """
    rng = _rng(random_state)
    net = RandomBayesianNetwork(
        n_attributes=n_attributes,
        n_values=n_values,
        n_classes=n_classes,
        max_parents=max_parents,
        concentration=concentration,
        random_state=rng,
    )
    X, y = net.sample(n_samples, random_state=rng)
    return X, y, net


# -------------------------------------------------------------------------- poker

#: Names of the poker-hand classes 0-9, in the order of the UCI poker-hand data.
POKER_HAND_CLASSES = (
    "nothing",
    "one pair",
    "two pairs",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
    "royal flush",
)

_ROYAL = (1 << 1) | (1 << 10) | (1 << 11) | (1 << 12) | (1 << 13)  # ranks 1 (ace), 10, J, Q, K


def poker_hand_class(X):
    """The class of each five-card poker hand, exactly as the UCI poker-hand data codes it.

    A hand is 10 columns ``S1, C1, S2, C2, ..., S5, C5``: suit 1-4 and rank 1-13 (1 is the
    ace, 11-13 jack, queen, king) of each card. The classes, highest first (a hand takes
    the highest that applies): 9 royal flush (10, J, Q, K, A of one suit), 8 straight flush
    (five ranks in sequence, one suit), 7 four of a kind, 6 full house (three of one rank
    and two of another), 5 flush (one suit), 4 straight (five ranks in sequence; the ace is
    low in A-2-3-4-5 and high in 10-J-Q-K-A, a sequence does not wrap round, as
    Q-K-A-2-3), 3 three of a kind, 2 two pairs, 1 one pair, 0 nothing.

    Parameters
    ----------
    X : array-like of shape (n, 10)
        Hands of five distinct cards.

    Returns
    -------
    ndarray of shape (n,), dtype int64
        Class codes 0-9 (see ``POKER_HAND_CLASSES``).

    Raises
    ------
    InputError
        If ``X`` is not (n, 10), holds a suit outside 1-4 or a rank outside 1-13, or a hand
        holds the same card twice.

    References
    ----------
    Cattral, R. & Oppacher, F. (2007). Poker Hand data set. UCI Machine Learning Repository.

    Examples
    --------
    >>> from seminaive.datasets import poker_hand_class
    >>> poker_hand_class([[1, 10, 1, 11, 1, 13, 1, 12, 1, 1],   # royal flush
    ...                   [2, 1, 3, 2, 1, 3, 4, 4, 2, 5],       # straight, ace low
    ...                   [1, 12, 2, 13, 3, 1, 4, 2, 1, 3]])    # no wrap round: nothing
    array([9, 4, 0])
    """
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] != 10:
        raise InputError(f"a poker hand is 10 columns (suit, rank) x 5, got shape {X.shape}")
    if X.size and not np.issubdtype(X.dtype, np.integer):
        if not np.all(np.equal(np.mod(X, 1), 0)):
            raise InputError("suits and ranks must be integers")
    X = X.astype(np.int64, copy=False)
    suits, ranks = X[:, 0::2], X[:, 1::2]
    if X.size and (suits.min() < 1 or suits.max() > 4 or ranks.min() < 1 or ranks.max() > 13):
        raise InputError("suits must be in 1-4 and ranks in 1-13 (ace 1, king 13)")
    cards = np.sort((suits - 1) * 13 + (ranks - 1), axis=1)
    if X.size and np.any(cards[:, 1:] == cards[:, :-1]):
        raise InputError("a hand holds the same card twice; deal five distinct cards")
    n = X.shape[0]
    counts = (ranks[:, :, None] == np.arange(14)).sum(axis=1, dtype=np.int8)  # per rank
    ordered = -np.sort(-counts, axis=1)
    first, second = ordered[:, 0], ordered[:, 1]
    flush = np.all(suits == suits[:, :1], axis=1)
    mask = (np.int64(1) << ranks).sum(axis=1)  # bit r set for each rank present
    distinct = first == 1
    low = ranks.min(axis=1)
    royal = distinct & (mask == _ROYAL)
    straight = distinct & ((ranks.max(axis=1) - low == 4) | royal)
    y = np.zeros(n, dtype=np.int64)
    y[first == 2] = 1
    y[(first == 2) & (second == 2)] = 2
    y[first == 3] = 3
    y[straight] = 4
    y[flush] = 5
    y[(first == 3) & (second == 2)] = 6
    y[first == 4] = 7
    y[straight & flush] = 8
    y[royal & flush] = 9
    return y


def make_poker_hand(n_samples, random_state=None, chunk_size=_DEFAULT_CHUNK):
    """Deal poker hands: five cards drawn without replacement from a 52-card deck.

    The class is an exact function of the cards (``poker_hand_class``), so the Bayes error
    is 0 and any number of rows can be drawn; the classes are very unequal (about 50.1 %
    nothing, 42.3 % one pair, 0.00015 % royal flush, the frequencies of all 2,598,960
    hands).

    Parameters
    ----------
    n_samples : int
        Number of hands.
    random_state : None, int or numpy.random.Generator
        Seed or generator.
    chunk_size : int, default=1_000_000
        Hands dealt at a time (bounds temporary memory).

    Returns
    -------
    X : ndarray of shape (n_samples, 10), dtype uint8
        ``S1, C1, ..., S5, C5``: suit 1-4 and rank 1-13 of each card, in dealing order.
    y : ndarray of shape (n_samples,), dtype int64
        Class 0-9 (see ``POKER_HAND_CLASSES``).

    References
    ----------
    Cattral, R. & Oppacher, F. (2007). Poker Hand data set. UCI Machine Learning Repository.

    Examples
    --------
    >>> from seminaive.datasets import make_poker_hand, poker_hand_class
    >>> X, y = make_poker_hand(1000, random_state=0)
    >>> X.shape, bool((poker_hand_class(X) == y).all()), int(X[:, 1::2].max()) <= 13
    ((1000, 10), True, True)
    """
    n = _check_n(n_samples)
    rng = _rng(random_state)
    chunk_size = max(1, int(chunk_size))
    X = np.empty((n, 10), dtype=np.uint8)
    y = np.empty(n, dtype=np.int64)
    for start in range(0, n, chunk_size):
        stop = min(start + chunk_size, n)
        cards = rng.integers(0, 52, size=(stop - start, 5), dtype=np.int16)
        while True:  # redeal the hands holding a card twice (about 18 %)
            s = np.sort(cards, axis=1)
            bad = np.flatnonzero(np.any(s[:, 1:] == s[:, :-1], axis=1))
            if not bad.size:
                break
            cards[bad] = rng.integers(0, 52, size=(bad.size, 5), dtype=np.int16)
        block = X[start:stop]
        block[:, 0::2] = cards // 13 + 1
        block[:, 1::2] = cards % 13 + 1
        y[start:stop] = poker_hand_class(block)
    return X, y
