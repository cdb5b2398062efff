"""
Numeric attributes: Gaussian children or discretisation
=======================================================

By default a numeric attribute is discretised (MDL cut points), which throws away where a
value lies inside its interval. ``numeric="gaussian"`` models a numeric *child* by a Gaussian
given the class and the sub-model's parent values instead (a numeric *parent* keeps its
interval).

Waveform data (Breiman et al. 1984) are noisy mixtures of waveforms, so Gaussian children
suit them. Naive Bayes and AODE are trained here on samples of growing size, three samples
per size, and tested on 2,000 other rows. With 50 training rows the Gaussian children cut the
error from about 0.24 to 0.20: MDL finds few cut points in so few rows. The gap closes as
the discretisation gets more rows to learn from; at 3,200 rows naive Bayes is level and
AODE keeps a small gain. On real data the Gaussian assumption can be wrong: the results
page compares both on the numeric sets of the corpus.
"""

import matplotlib.pyplot as plt
import numpy as np

from seminaive import AODE, NaiveBayes
from seminaive.datasets import make_waveform

X_test, y_test = make_waveform(2000, random_state=0)
sizes = [50, 200, 800, 3200]
errors = {}
for name, cls in (("NB", NaiveBayes), ("AODE", AODE)):
    for numeric in ("discretize", "gaussian"):
        curve = []
        for size in sizes:
            losses = []
            for sample in range(3):
                X, y = make_waveform(size, random_state=100 * sample + size)
                model = cls(numeric=numeric).fit(X, y)
                losses.append(np.mean(model.predict(X_test) != y_test))
            curve.append(np.mean(losses))
        errors[name, numeric] = curve

for (name, numeric), curve in errors.items():
    print(f"{name:4s} {numeric:10s} " + "  ".join(f"{e:.3f}" for e in curve))

fig, ax = plt.subplots(figsize=(6, 4))
for (name, numeric), curve in errors.items():
    ax.plot(sizes, curve, marker="o", linestyle="-" if numeric == "gaussian" else "--",
            label=f"{name}, {numeric}")
ax.set_xscale("log")
ax.set_xlabel("training rows")
ax.set_ylabel("zero-one loss (2,000 test rows)")
ax.set_title("Waveform: Gaussian children against MDL discretisation")
ax.legend()
fig.tight_layout()
plt.show()
