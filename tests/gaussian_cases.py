"""Cases of ``tests/structure/test_sparse_moments.py``: the learners with Gaussian children whose
outputs the dense moment blocks (commit f8440f9, before the moments were stored for the
occurring cells only) wrote to ``tests/data/gaussian_reference.npz``
(``python tests/gaussian_cases.py OUT.npz`` at that commit)."""

import sys
import warnings

import numpy as np
from sparse_cases import make_data

from seminaive import KDB, SKDB, TAN

#: the reference was written by plug-in Gaussian children (the default then)
PLUGIN = {"numeric": "gaussian", "density": "plugin"}


def learner_cases():
    """(name, estimator, weighted) triples; every one is fitted on the first 350 rows of
    :func:`sparse_cases.make_data` (4 % missing in every column, numeric parents' codes
    included) and scored on the rest."""
    cases = []
    for k in range(1, 6):
        cases.append((f"kdb{k}-g", KDB(k=k, **PLUGIN), False))
    # min_count=0: empty cells are used, their estimates drawn from the coarser cell with
    # a kappa that is not a power of two (rounding in every step)
    cases.append(("kdb4-g-m3-mc0", KDB(k=4, **PLUGIN, m=3.0, min_count=0), False))
    cases.append(("kdb5-g-m0.7-mc0", KDB(k=5, **PLUGIN, m=0.7, min_count=0),
                  False))
    cases.append(("kdb3-g-laplace", KDB(k=3, **PLUGIN, smoothing="laplace"), False))
    cases.append(("kdb3-g-mc5", KDB(k=3, **PLUGIN, min_count=5), False))
    cases.append(("kdb3-g-value", KDB(k=3, **PLUGIN, missing="value"), False))
    cases.append(("kdb3-g-w", KDB(k=3, **PLUGIN), True))
    cases.append(("kdb5-g-w-m2.5", KDB(k=5, **PLUGIN, m=2.5, min_count=0), True))
    cases.append(("kdb2-g-eqf", KDB(k=2, **PLUGIN, discretizer="equal_frequency",
                                    n_bins=5), False))
    cases.append(("tan-g", TAN(**PLUGIN), False))
    cases.append(("tan-g-w-value", TAN(**PLUGIN, missing="value", m=3.0), True))
    for k in (2, 3, 4):
        cases.append((f"skdb{k}-g", SKDB(k=k, **PLUGIN), False))
    cases.append(("skdb3-g-log-value", SKDB(k=3, **PLUGIN, loss="log_loss",
                                            missing="value"), False))
    cases.append(("skdb4-g-w-m3-mc0", SKDB(k=4, **PLUGIN, m=3.0, min_count=0),
                  True))
    cases.append(("skdb3-g-laplace-01", SKDB(k=3, **PLUGIN, smoothing="laplace",
                                             loss="zero_one"), False))
    return cases


def fitted(model, weighted=False):
    """The model fitted on the first 350 rows (weights 0..3 when ``weighted``)."""
    X, y = make_data()
    w = None
    if weighted:
        w = np.random.default_rng(5).integers(0, 4, 350).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X.iloc[:350], y[:350], sample_weight=w)
    return model


def outputs(model):
    """What the reference holds of a fitted model: probabilities on the last 150 rows and
    the selection."""
    X, _ = make_data()
    out = {"proba": model.predict_proba(X.iloc[350:])}
    for name in ("k_", "n_selected_features_", "loo_loss_", "structure_"):
        if hasattr(model, name):
            out[name] = np.asarray(getattr(model, name))
    return out


def partial_cases():
    """(name, estimator): fitted by partial_fit on rows 0-199, then 200-349 (new parent
    cells in the second chunk)."""
    return [("kdb1-g-partial", KDB(k=1, **PLUGIN)),
            ("kdb3-g-partial", KDB(k=3, **PLUGIN, m=3.0, min_count=0)),
            ("skdb3-g-partial", SKDB(k=3, **PLUGIN)),
            ("tan-g-partial", TAN(**PLUGIN))]


def partially_fitted(model):
    X, y = make_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.partial_fit(X.iloc[:200], y[:200], classes=np.arange(3))
        model.partial_fit(X.iloc[200:350], y[200:350])
    return model


def main(path):
    out = {}
    for name, model, weighted in learner_cases():
        for key, value in outputs(fitted(model, weighted)).items():
            out[f"{name}|{key}"] = value
    for name, model in partial_cases():
        for key, value in outputs(partially_fitted(model)).items():
            out[f"{name}|{key}"] = value
    np.savez_compressed(path, **out)
    return len(out)


if __name__ == "__main__":
    print(main(sys.argv[1]), "arrays")
