"""Evaluation metrics as the source papers use them."""

import numpy as np


def _true_class_proba(y_true, proba, classes):
    classes = np.asarray(classes)
    index = np.searchsorted(classes, y_true)
    index = np.clip(index, 0, len(classes) - 1)
    if np.any(classes[index] != np.asarray(y_true)):
        raise ValueError("y_true contains labels that are not in classes")
    return proba[np.arange(len(index)), index]


def zero_one_loss(y_true, y_pred):
    """Fraction of misclassified rows."""
    return float(np.mean(np.asarray(y_true) != np.asarray(y_pred)))


def rmse(y_true, proba, classes):
    """Root mean squared error as seeds 000 and 002 use it.

    sqrt(mean over test rows of (1 - P(true class | x))^2).
    """
    p = _true_class_proba(y_true, proba, classes)
    return float(np.sqrt(np.mean((1.0 - p) ** 2)))


def log_loss(y_true, proba, classes, eps=1e-15):
    """Mean of -log P(true class | x), probabilities clipped to [eps, 1]."""
    p = _true_class_proba(y_true, proba, classes)
    return float(np.mean(-np.log(np.clip(p, eps, 1.0))))
