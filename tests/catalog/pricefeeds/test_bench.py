"""The synthetic offer file of the benchmark: real format, and memory flat with its size."""

from __future__ import annotations

import json
import tempfile
import tracemalloc
from pathlib import Path

import pytest

from benchmarks.pricefeeds import RESERVED_TERMS
from benchmarks.pricefeeds import main
from benchmarks.pricefeeds import write_synthetic_offer
from catalog.pricefeeds import PricingModel
from catalog.pricefeeds import parse_offer
from catalog.pricefeeds.mapping import default_instance_map


def heap_peak_bytes(path: Path) -> int:
    tracemalloc.start()
    parse_offer(path, region="us-east-1")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_the_synthetic_file_is_valid_json_in_the_offer_shape(tmp_path: Path) -> None:
    path = tmp_path / "index.json"
    write_synthetic_offer(path, size_bytes=1_500_000)

    offer = json.loads(path.read_text())
    assert offer["offerCode"] == "AmazonEC2"
    assert list(offer)[:7] == [
        "formatVersion", "disclaimer", "offerCode", "version", "publicationDate", "products",
        "terms",
    ]  # fmt: skip
    assert '"sku" : "' in path.read_text()[:2000]  # Jackson's "key" : value style


def test_the_synthetic_file_prices_every_mapped_instance_once_per_term(tmp_path: Path) -> None:
    path = tmp_path / "index.json"
    write_synthetic_offer(path, size_bytes=1_500_000)

    result = parse_offer(path, region="us-east-1")

    instance_types = len(default_instance_map().offers["aws"])
    on_demand = [p for p in result.prices if p.pricing_model == PricingModel.ON_DEMAND]
    assert len(on_demand) == instance_types
    # 1 on-demand + 12 reserved terms per instance type; 9 decoy variants each rejected.
    assert len(result.prices) == instance_types * (1 + len(RESERVED_TERMS))
    assert len(result.rejections) == instance_types * 9


def test_peak_memory_does_not_grow_with_the_file_size(tmp_path: Path) -> None:
    small, large = tmp_path / "small.json", tmp_path / "large.json"
    # The same 4 accelerator instance types in both files; only the other products grow 4x.
    write_synthetic_offer(small, size_bytes=1_000_000, accelerator_instance_types=4)
    write_synthetic_offer(large, size_bytes=4_000_000, accelerator_instance_types=4)
    assert large.stat().st_size > 3.5 * small.stat().st_size
    default_instance_map()  # loaded once per process; keep it out of both measurements

    small_peak, large_peak = heap_peak_bytes(small), heap_peak_bytes(large)

    # Loading the file would need more than its size again: a 3 MB larger file would add
    # well over 3 MB. Streaming keeps the two peaks within a quarter of each other.
    assert large_peak < 1.25 * small_peak
    assert large_peak - small_peak < 1_000_000


def test_the_command_prints_its_figures_and_deletes_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    assert main(["--size-mb", "1", "--skip-tracemalloc"]) == 0

    output = capsys.readouterr().out
    instance_types = len(default_instance_map().offers["aws"])
    assert f"{instance_types * 13} prices" in output  # 48 mapped types x 13 terms = 624
    assert "peak RSS" in output
    assert list(tmp_path.iterdir()) == []
