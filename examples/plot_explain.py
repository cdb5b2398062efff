"""
Explaining predictions: contributions, summaries and structure
==============================================================

Every learner explains its predictions: ``model.explain(X)`` gives the contribution of every
attribute to every class's log posterior, the Shapley value of the attribute when the value
of a set of attributes is the model's own prediction with the others missing (Shapley 1953;
Covert, Lundberg & Lee 2021). Base plus contributions is ``predict_log_proba`` up to a
constant per row.

On the chess end-game data (kr-vs-kp: 36 nominal attributes, "won" or "nowin"), naive Bayes
is explained exactly by its log-likelihood ratios, AODE on ten attributes by enumerating
the 1,024 sets of attributes, and AODE on all 36 by antithetic permutation sampling with a
standard error.
"""

import matplotlib.pyplot as plt
import numpy as np

from seminaive import AODE, KDB, NaiveBayes
from seminaive.datasets import load_kr_vs_kp
from seminaive.evaluation.explanation_plots import plot_structure, plot_summary, plot_waterfall

X, y = load_kr_vs_kp()
rows = X.iloc[:300]

# %%
# Naive Bayes: the contributions are its log-likelihood ratios (the additive scheme, 37
# predictions per row). Base plus contributions reproduces the log posterior.

nb = NaiveBayes().fit(X, y)
ex = nb.explain(rows)
print(ex.method, ex.values.shape)
print("max additivity error:", np.abs(ex.log_proba() - nb.predict_log_proba(rows)).max())

fig, ax = plt.subplots(figsize=(7, 5))
plot_summary(ex, ax=ax, max_display=12)
ax.set_title("Naive Bayes: mean |contribution| over 300 rows")
fig.tight_layout()

# %%
# AODE on the ten attributes naive Bayes found most important: exact Shapley values by
# enumeration. The waterfall shows how one row's score for its predicted class is built.

top = list(np.asarray(ex.feature_names)[np.argsort(-ex.feature_importances_)[:10]])
aode = AODE().fit(X[top], y)
ex10 = aode.explain(rows[top].iloc[:100])
print(ex10.method, "predictions per row:", ex10.n_predictions // len(ex10))
print("max additivity error:",
      np.abs(ex10.log_proba() - aode.predict_log_proba(rows[top].iloc[:100])).max())

fig, ax = plt.subplots(figsize=(7, 5))
plot_waterfall(ex10, row=0, ax=ax)
fig.tight_layout()

fig, ax = plt.subplots(figsize=(7, 5))
plot_summary(ex10, "won", kind="beeswarm", ax=ax)
ax.set_title("AODE: contributions to 'won', coloured by the attribute's value")
fig.tight_layout()

# %%
# AODE on all 36 attributes: too many sets to enumerate, so the values are sampled. Every
# estimate is exactly efficient (the contributions telescope along each permutation), and
# the standard error says how far a value may be from the exact one.

aode36 = AODE().fit(X, y)
ex36 = aode36.explain(X.iloc[:20], n_permutations=16, random_state=0)
print(ex36.method, "max additivity error:",
      np.abs(ex36.log_proba() - aode36.predict_log_proba(X.iloc[:20])).max())
print("median standard error / median |value|:",
      np.median(ex36.standard_errors), "/", np.median(np.abs(ex36.values)))

# %%
# The structure KDB learnt on eight of the attributes: the class points to every attribute,
# and every attribute has up to two attribute parents.

kdb = KDB(k=2).fit(X[top[:8]], y)
fig, ax = plt.subplots(figsize=(7, 6))
plot_structure(kdb, ax=ax)
fig.tight_layout()
