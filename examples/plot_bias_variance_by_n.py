"""
Bias and variance by n
======================

Kohavi & Wolpert's decomposition of zero-one loss, estimated as in Webb et al. (2012):
repeated 2-fold cross-validation. Every row is classified once per repeat, by a model that
did not see it. On this network, bias falls and variance rises with the number of parents n;
at 2,000 rows the fall in bias still outweighs the rise in variance up to A3DE.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import StratifiedKFold

from seminaive import AnDE
from seminaive.datasets import make_random_bn
from seminaive.metrics import kohavi_wolpert

X, y, network = make_random_bn(2000, n_attributes=8, n_values=4, n_classes=3,
                               max_parents=2, concentration=0.3, random_state=7)
orders = [0, 1, 2, 3]
n_repeats = 5
results = {}
for n in orders:
    predictions = np.full((len(y), n_repeats), -1)
    for repeat in range(n_repeats):
        folds = StratifiedKFold(n_splits=2, shuffle=True, random_state=repeat)
        for train, test in folds.split(X, y):
            model = AnDE(n=n, categorical_features="all").fit(X[train], y[train])
            predictions[test, repeat] = model.predict(X[test])
    results[n] = kohavi_wolpert(y, predictions, n_classes=3)

fig, ax = plt.subplots(figsize=(6, 4))
width = 0.35
bias = [results[n]["bias"] for n in orders]
variance = [results[n]["variance"] for n in orders]
ax.bar(np.array(orders) - width / 2, bias, width, label="bias²")
ax.bar(np.array(orders) + width / 2, variance, width, label="variance")
ax.plot(orders, [results[n]["error"] for n in orders], "k-o", label="zero-one loss")
ax.set_xticks(orders, [f"A{n}DE" for n in orders])
ax.set_ylabel("loss")
ax.set_title("Kohavi-Wolpert decomposition by n (5 x 2-fold CV)")
ax.legend()
fig.tight_layout()

for n in orders:
    r = results[n]
    print(f"A{n}DE  error {r['error']:.3f}  bias {r['bias']:.3f}  variance {r['variance']:.3f}")
