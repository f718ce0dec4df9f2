"""The equity network: a per-combo equity estimator, its true-equity datasets and trainer."""
