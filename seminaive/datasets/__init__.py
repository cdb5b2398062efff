"""Data sets: synthetic generators with known Bayes error, small bundled real data, file
readers (ARFF, CSV, Parquet) and the registry of named data sets used by experiments."""

from seminaive.datasets.bundled import load_kr_vs_kp
from seminaive.datasets.generators import (
    POKER_HAND_CLASSES,
    RandomBayesianNetwork,
    led_bayes_error,
    make_led,
    make_poker_hand,
    make_random_bn,
    make_waveform,
    poker_hand_class,
)
from seminaive.datasets.loaders import read_arff, read_csv, read_parquet
from seminaive.datasets.registry import available, dataset_info, load

__all__ = [
    "make_led",
    "led_bayes_error",
    "make_waveform",
    "RandomBayesianNetwork",
    "make_random_bn",
    "POKER_HAND_CLASSES",
    "poker_hand_class",
    "make_poker_hand",
    "load_kr_vs_kp",
    "read_arff",
    "read_csv",
    "read_parquet",
    "load",
    "available",
    "dataset_info",
]
