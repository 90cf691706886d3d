"""A batch process keeps its freed heap: the second batch of the same size faults no memory in."""
from __future__ import annotations

import subprocess
import sys
import textwrap

# Allocates and frees 64 arrays of 1 MB (like a chunk's columns) ten times; prints the page
# faults of the last nine rounds.
ROUNDS = textwrap.dedent("""
    import resource, sys
    import numpy as np
    from core.heap import keep_freed_heap
    kept = keep_freed_heap(256 * 1024 * 1024) if sys.argv[1] == "keep" else None
    def faults():
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for round in range(10):
        if round == 1:
            before = faults()
        arrays = [np.ones(131_072) for _ in range(64)]
        del arrays
    print(kept, faults() - before)
""")


def faults_after_the_first_round(mode: str) -> tuple[str, int]:
    out = subprocess.run([sys.executable, "-c", ROUNDS, mode], capture_output=True, text=True, check=True)
    kept, faults = out.stdout.split()
    return kept, int(faults)


def test_with_the_freed_heap_kept_later_rounds_fault_nothing_in():
    kept, faults = faults_after_the_first_round("keep")

    assert kept == "True"  # glibc, as on every machine this runs on
    # 9 rounds x 64 MB = 147,456 pages of 4 KB without it; a few pages of bookkeeping with it.
    assert faults < 1_000


def test_with_glibcs_defaults_every_round_faults_its_memory_in_again():
    _, faults = faults_after_the_first_round("default")

    assert faults > 9 * 64 * 256 / 2  # at least half of the 4 KB pages of 9 x 64 MB
