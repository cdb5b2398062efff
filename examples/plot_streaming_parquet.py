"""
Streaming a Parquet file
========================

``fit_stream`` learns from files larger than memory in two passes, reading one chunk at a
time. The first pass collects the class labels, the values of every nominal column and a
sample of rows for the cut points of numeric columns. The second pass counts. Memory holds
the tables and one chunk. ``predict_stream`` reads a file chunk by chunk too, and writes the
predictions to a Parquet file.

Here a small temporary file stands in for a large one, and the streamed model is checked
against ``fit`` on the same rows.
"""

import shutil
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from seminaive import AODE
from seminaive.datasets import load_kr_vs_kp

X, y = load_kr_vs_kp()
folder = Path(tempfile.mkdtemp())
train = folder / "train.parquet"
X.assign(label=y).to_parquet(train, row_group_size=500)

# chunks of 400 rows: the file is never held in memory as a whole
streamed = AODE().fit_stream(train, target="label", chunk_rows=400)
in_memory = AODE().fit(X, y)
print("identical counts:", bool(np.array_equal(streamed.table_.counts,
                                                in_memory.table_.counts)))

# %%
# Predict the file chunk by chunk. The model reads its own feature columns and ignores
# the others (here the class column).

out = folder / "predictions.parquet"
n_rows = streamed.predict_stream(train, out, chunk_rows=400)
predictions = pd.read_parquet(out)
print(n_rows, "rows written; columns:", list(predictions.columns))
print("accuracy:", np.mean(predictions["prediction"].to_numpy() == y.to_numpy()))

fig, ax = plt.subplots(figsize=(6, 4))
for label in streamed.classes_:
    ax.hist(predictions.loc[y.to_numpy() == label, "proba_won"], bins=30, alpha=0.6,
            label=f"true class {label}")
ax.set_xlabel("P(won | x), streamed AODE")
ax.set_ylabel("rows")
ax.set_yscale("log")
ax.set_title("Probabilities written by predict_stream")
ax.legend()
fig.tight_layout()

shutil.rmtree(folder)
