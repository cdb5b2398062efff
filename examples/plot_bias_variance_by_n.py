"""
Bias and variance by n
======================

Kohavi & Wolpert's decomposition of zero-one loss, estimated as Webb et al. (2012) do:
repeated 2-fold cross-validation, in which every row is classified once per repeat by a model
that did not see it. The spread of a row's predictions over the repeats is its variance, and
the part of its error that remains is its bias (the two add up to the zero-one loss).

On this network, bias falls as the number of parents n grows (up to A2DE) and variance rises
with every n. The error is therefore lowest in the middle: A3DE's extra variance costs more
than it gains in bias at 2,000 rows.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import KFold

from seminaive import AnDE
from seminaive.datasets import make_random_bn
from seminaive.metrics import kohavi_wolpert

X, y, network = make_random_bn(2000, n_attributes=8, n_values=4, n_classes=3,
                               max_parents=2, random_state=7)
orders = [0, 1, 2, 3]
n_repeats = 10
results = {}
for n in orders:
    # one column of predictions per repeat; every row is in exactly one test fold
    predictions = np.full((len(y), n_repeats), -1)
    for repeat in range(n_repeats):
        halves = KFold(n_splits=2, shuffle=True, random_state=repeat)
        for train, test in halves.split(X):
            model = AnDE(n=n, categorical_features="all").fit(X[train], y[train])
            predictions[test, repeat] = model.predict(X[test])
    results[n] = kohavi_wolpert(y, predictions, n_classes=3)

for n in orders:
    r = results[n]
    print(f"A{n}DE  error {r['error']:.3f}  bias {r['bias']:.3f}  variance {r['variance']:.3f}")

# %%
# Bias and variance stack up to the zero-one loss.

bias = np.array([results[n]["bias"] for n in orders])
variance = np.array([results[n]["variance"] for n in orders])
fig, ax = plt.subplots(figsize=(6, 4))
ax.bar(orders, bias, 0.6, label="bias²")
ax.bar(orders, variance, 0.6, bottom=bias, label="variance")
ax.set_xticks(orders, [f"A{n}DE" for n in orders])
ax.set_ylim(0.5 * bias.min(), 1.1 * (bias + variance).max())
ax.set_ylabel("zero-one loss")
ax.set_title(f"Kohavi-Wolpert decomposition by n ({n_repeats} x 2-fold CV)")
ax.legend(loc="upper left")
fig.tight_layout()
