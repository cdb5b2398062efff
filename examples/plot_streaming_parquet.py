"""
Streaming a Parquet file
========================

``fit_stream`` learns from files larger than memory in two passes, reading one chunk at a
time. The first pass collects the class labels and the values of every nominal column. The
second pass counts. ``predict_stream`` writes predictions chunk by chunk to Parquet. Here a
small file stands in for a large one, and the streamed model is checked against ``fit`` on
the same rows.
"""

import os
import tempfile

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from seminaive import AODE
from seminaive.datasets import load_kr_vs_kp

X, y = load_kr_vs_kp()
folder = tempfile.mkdtemp()
train = os.path.join(folder, "train.parquet")
X.assign(label=y).to_parquet(train, row_group_size=500)

streamed = AODE().fit_stream(train, target="label", chunk_rows=400)
in_memory = AODE().fit(X, y)
print("largest difference in probabilities:",
      np.abs(streamed.predict_proba(X) - in_memory.predict_proba(X)).max())

out = os.path.join(folder, "predictions.parquet")
n_rows = streamed.predict_stream(X, out, chunk_rows=400)
predictions = pd.read_parquet(out)
print(n_rows, "rows written; columns:", list(predictions.columns))

fig, ax = plt.subplots(figsize=(6, 4))
for label in streamed.classes_:
    ax.hist(predictions.loc[y.to_numpy() == label, "proba_won"], bins=30, alpha=0.6,
            label=f"true class {label}")
ax.set_xlabel("P(won | x), streamed AODE")
ax.set_ylabel("rows")
ax.set_yscale("log")
ax.set_title("Predicted probabilities written by predict_stream")
ax.legend()
fig.tight_layout()
