"""Data sets: synthetic generators with known Bayes error, small bundled real data, file
readers (ARFF, CSV, Parquet) and the registry of named data sets used by experiments."""

from seminaive.datasets.bundled import load_kr_vs_kp
from seminaive.datasets.generators import (
    RandomBayesianNetwork,
    led_bayes_error,
    make_led,
    make_random_bn,
    make_waveform,
)
from seminaive.datasets.loaders import read_arff, read_csv, read_parquet
from seminaive.datasets.registry import available, dataset_info, load

__all__ = [
    "make_led",
    "led_bayes_error",
    "make_waveform",
    "RandomBayesianNetwork",
    "make_random_bn",
    "load_kr_vs_kp",
    "read_arff",
    "read_csv",
    "read_parquet",
    "load",
    "available",
    "dataset_info",
]
