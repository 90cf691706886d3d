"""Benchmarks: `python -m benchmarks` prints each figure (see README, Performance).

Nothing in the service imports this package; it drives the service from outside.
"""
