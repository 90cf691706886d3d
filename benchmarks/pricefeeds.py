"""Benchmark: stream a synthetic AWS EC2 offer file of a chosen size through the JSON parser.

Run ``python -m benchmarks.pricefeeds`` (about 500 MB, the size of the real us-east-1
file) or ``python -m benchmarks.pricefeeds --size-mb 20`` for a quick run. The file is
written in the real format (Jackson pretty-print, products before terms, 12 reserved terms
per Linux box), parsed once in a child process for time and peak RSS, once more under
tracemalloc for the Python heap peak, then deleted.

The accelerator share is fixed (the real us-east-1 file holds a few thousand GPU/ASIC
products whatever its size), so a flat peak across ``--size-mb`` values shows that memory
does not grow with the file.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import multiprocessing
import resource
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from catalog.pricefeeds.aws_offer import parse_offer
from catalog.pricefeeds.mapping import default_instance_map

VERSION = "20260910195514"
REGION = "us-east-1"
ON_DEMAND_CODE = "JRTCKXETXF"
HOURLY_SUFFIX = "6YS6EN2CT7"
UPFRONT_SUFFIX = "2TG2D8R56U"
PURCHASE_OPTIONS = ("No Upfront", "Partial Upfront", "All Upfront")
# The real fixed offer term codes (price-feed-formats.md section 1.4), in PURCHASE_OPTIONS order.
TERM_CODES = {
    ("1yr", "standard"): ("4NA7Y494T4", "HU7G6KETJZ", "6QCMYABX3D"),
    ("1yr", "convertible"): ("7NE97W5U4E", "CUZHX8X6JH", "VJWZNREJX2"),
    ("3yr", "standard"): ("BPH4J8HBKS", "38NPMPTW36", "NQ3QZPMQV9"),
    ("3yr", "convertible"): ("Z2E3P23VKM", "R5XV2EPZQZ", "MZU6U2429S"),
}
RESERVED_TERMS = tuple(
    (code, lease, offering_class, option)
    for (lease, offering_class), codes in TERM_CODES.items()
    for code, option in zip(codes, PURCHASE_OPTIONS, strict=True)
)
# Product variants the real file carries per instance type; only the first is a price.
VARIANTS = (
    ("Linux", "Shared", "Used", "No License required", "NA"),
    ("Windows", "Shared", "Used", "No License required", "NA"),
    ("Windows", "Shared", "Used", "Bring your own license", "NA"),
    ("Red Hat Enterprise Linux", "Shared", "Used", "No License required", "NA"),
    ("SUSE", "Shared", "Used", "No License required", "NA"),
    ("Linux", "Shared", "Used", "No License required", "SQL Std"),
    ("Linux", "Dedicated", "Used", "No License required", "NA"),
    ("Linux", "Host", "Used", "No License required", "NA"),
    ("Linux", "Shared", "UnusedCapacityReservation", "No License required", "NA"),
    ("Linux", "Shared", "AllocatedCapacityReservation", "No License required", "NA"),
)
FILLER_FAMILIES = ("m5", "c5", "r5", "m6i", "c6i", "r6i", "m7g", "c7g", "t3", "i4i")
SIZES = ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge")


@dataclass(frozen=True)
class SyntheticProduct:
    """One product row of the synthetic file and what its terms should look like."""

    sku: str
    instance_type: str
    instance_family: str
    gpu_count: int
    operating_system: str
    tenancy: str
    capacity_status: str
    license_model: str
    pre_installed_sw: str
    hourly_usd: float
    with_reserved: bool


@dataclass(frozen=True)
class BenchFigures:
    """What one parse of the synthetic file measured."""

    seconds: float
    rss_before_mib: float  # the interpreter and imports, before the file is opened
    peak_rss_mib: float
    prices: int
    rejections: int


def sku_for(index: int) -> str:
    """A 16-character upper-case SKU, unique per index."""
    return f"{index:016X}"


def accelerator_products(start_index: int, instance_types: int | None = None) -> list[SyntheticProduct]:
    """Mapped AWS accelerator instances (all, or the first few) in every product variant."""
    products = []
    index = start_index
    mapped = sorted(default_instance_map().offers["aws"].items())[:instance_types]
    for instance_type, match in mapped:
        is_asic = instance_type.startswith(("inf", "trn"))
        family = "Machine Learning ASIC Instances" if is_asic else "GPU instance"
        for variant_number, (os_name, tenancy, capacity, licence, software) in enumerate(VARIANTS):
            products.append(
                SyntheticProduct(
                    sku=sku_for(index),
                    instance_type=instance_type,
                    instance_family=family,
                    gpu_count=match.accelerators_per_instance,
                    operating_system=os_name,
                    tenancy=tenancy,
                    capacity_status=capacity,
                    license_model=licence,
                    pre_installed_sw=software,
                    hourly_usd=2.0 * match.accelerators_per_instance + 0.1 * variant_number,
                    with_reserved=capacity == "Used" and tenancy != "Host",
                )
            )
            index += 1
    return products


def filler_products(start_index: int) -> Iterator[SyntheticProduct]:
    """Endless general-purpose products in every variant: the bulk of the real file."""
    index = start_index
    generation = 0
    while True:
        for family in FILLER_FAMILIES:
            for size_number, size in enumerate(SIZES):
                for variant_number, (os_name, tenancy, capacity, licence, software) in enumerate(VARIANTS):
                    yield SyntheticProduct(
                        sku=sku_for(index),
                        instance_type=f"{family}{'' if generation == 0 else generation}.{size}",
                        instance_family="General purpose",
                        gpu_count=0,
                        operating_system=os_name,
                        tenancy=tenancy,
                        capacity_status=capacity,
                        license_model=licence,
                        pre_installed_sw=software,
                        hourly_usd=0.05 * (size_number + 1) + 0.01 * variant_number,
                        with_reserved=capacity == "Used" and tenancy != "Host",
                    )
                    index += 1
        generation += 1


def product_json(product: SyntheticProduct) -> str:
    """A product entry in the Jackson pretty-print style of the real files."""
    usage_prefix = {"Shared": "BoxUsage", "Dedicated": "DedicatedUsage", "Host": "HostBoxUsage"}[
        product.tenancy
    ]
    if product.capacity_status == "UnusedCapacityReservation":
        usage_prefix = "UnusedBox"
    elif product.capacity_status == "AllocatedCapacityReservation":
        usage_prefix = "Reservation"
    attributes = {
        "servicecode": "AmazonEC2",
        "location": "US East (N. Virginia)",
        "locationType": "AWS Region",
        "instanceType": product.instance_type,
        "currentGeneration": "Yes",
        "instanceFamily": product.instance_family,
        "vcpu": "96",
        "physicalProcessor": "AMD EPYC 7R13 Processor",
        "clockSpeed": "2.95 GHz",
        "memory": "768 GiB",
        "storage": "EBS only",
        "networkPerformance": "100 Gigabit",
        "processorArchitecture": "64-bit",
        "tenancy": product.tenancy,
        "operatingSystem": product.operating_system,
        "licenseModel": product.license_model,
        "usagetype": f"{usage_prefix}:{product.instance_type}",
        "operation": "RunInstances" if product.operating_system == "Linux" else "RunInstances:0002",
        "availabilityzone": "NA",
        "capacitystatus": product.capacity_status,
        "classicnetworkingsupport": "false",
        "dedicatedEbsThroughput": "80 Gbps",
        "ecu": "NA",
        "enhancedNetworkingSupported": "Yes",
        "gpu": str(product.gpu_count) if product.gpu_count else "",
        "gpuMemory": f"{product.gpu_count * 80} GB HBM3" if product.gpu_count else "NA",
        "instanceFamilyCategory": "Accelerated Computing" if product.gpu_count else "General Purpose",
        "intelAvx2Available": "No",
        "marketoption": "OnDemand",
        "normalizationSizeFactor": "192",
        "preInstalledSw": product.pre_installed_sw,
        "processorFeatures": "AMD Turbo; AVX; AVX2",
        "regionCode": REGION,
        "servicename": "Amazon Elastic Compute Cloud",
        "vpcnetworkingsupport": "true",
    }
    lines = ",\n".join(f'        "{key}" : "{value}"' for key, value in attributes.items() if value)
    return (
        f'    "{product.sku}" : {{\n'
        f'      "sku" : "{product.sku}",\n'
        f'      "productFamily" : "Compute Instance",\n'
        f'      "attributes" : {{\n{lines}\n      }}\n'
        f"    }}"
    )


def _dimension(sku: str, term_code: str, suffix: str, unit: str, usd: str, description: str) -> str:
    ranges = '              "beginRange" : "0",\n              "endRange" : "Inf",\n' if unit == "Hrs" else ""
    return (
        f'            "{sku}.{term_code}.{suffix}" : {{\n'
        f'              "rateCode" : "{sku}.{term_code}.{suffix}",\n'
        f'              "description" : "{description}",\n'
        f"{ranges}"
        f'              "unit" : "{unit}",\n'
        f'              "pricePerUnit" : {{\n                "USD" : "{usd}"\n              }},\n'
        f'              "appliesTo" : [ ]\n'
        f"            }}"
    )


def _term(sku: str, term_code: str, date: str, dimensions: list[str], attributes: str) -> str:
    joined = ",\n".join(dimensions)
    return (
        f'        "{sku}.{term_code}" : {{\n'
        f'          "offerTermCode" : "{term_code}",\n'
        f'          "sku" : "{sku}",\n'
        f'          "effectiveDate" : "{date}",\n'
        f'          "priceDimensions" : {{\n{joined}\n          }},\n'
        f'          "termAttributes" : {attributes}\n'
        f"        }}"
    )


def on_demand_json(product: SyntheticProduct) -> str:
    """The product's OnDemand entry (one term, one hourly dimension)."""
    hourly = f"{product.hourly_usd:.10f}"
    dimension = _dimension(
        product.sku,
        ON_DEMAND_CODE,
        HOURLY_SUFFIX,
        "Hrs",
        hourly,
        f"${product.hourly_usd} per On Demand {product.operating_system} "
        f"{product.instance_type} Instance Hour",
    )
    term = _term(product.sku, ON_DEMAND_CODE, "2026-09-01T00:00:00Z", [dimension], "{ }")
    return f'      "{product.sku}" : {{\n{term}\n      }}'


def reserved_json(product: SyntheticProduct) -> str:
    """The product's Reserved entry: all 12 real term codes."""
    terms = []
    for code, lease, offering_class, option in RESERVED_TERMS:
        years = 1 if lease == "1yr" else 3
        discount = 0.6 if offering_class == "standard" else 0.7
        hourly_total = product.hourly_usd * discount
        upfront_share = {"No Upfront": 0.0, "Partial Upfront": 0.5, "All Upfront": 1.0}[option]
        hourly = f"{hourly_total * (1 - upfront_share):.10f}"
        description = f"Linux/UNIX (Amazon VPC), {product.instance_type} reserved instance applied"
        dimensions = [_dimension(product.sku, code, HOURLY_SUFFIX, "Hrs", hourly, description)]
        if upfront_share:
            upfront = f"{round(hourly_total * upfront_share * years * 8760)}"
            dimensions.insert(
                0, _dimension(product.sku, code, UPFRONT_SUFFIX, "Quantity", upfront, "Upfront Fee")
            )
        attributes = (
            f'{{\n            "LeaseContractLength" : "{lease}",\n'
            f'            "OfferingClass" : "{offering_class}",\n'
            f'            "PurchaseOption" : "{option}"\n          }}'
        )
        terms.append(_term(product.sku, code, "2025-06-01T00:00:00Z", dimensions, attributes))
    joined = ",\n".join(terms)
    return f'      "{product.sku}" : {{\n{joined}\n      }}'


def write_synthetic_offer(
    path: Path, *, size_bytes: int, accelerator_instance_types: int | None = None
) -> int:
    """Write an offer file of about ``size_bytes``; returns the number of products.

    ``accelerator_instance_types`` limits the accelerator products to the first few mapped
    instance types (default: all 48, about 5.4 MB of the file).
    """
    fixed = accelerator_products(start_index=1, instance_types=accelerator_instance_types)
    # Size each filler product with its terms once, then take as many as the target needs.
    sample = next(filler_products(0))
    per_product = (
        len(product_json(sample))
        + len(on_demand_json(sample))
        + (
            len(reserved_json(sample))
            * sum(v[2] == "Used" and v[1] != "Host" for v in VARIANTS)
            / len(VARIANTS)
        )
    )
    fixed_bytes = sum(
        len(product_json(p)) + len(on_demand_json(p)) + p.with_reserved * len(reserved_json(p)) for p in fixed
    )
    filler_count = max(0, int((size_bytes - fixed_bytes) / per_product))

    def products() -> Iterator[SyntheticProduct]:
        # Regenerated for each section, so writing a 500 MB file holds no product list.
        yield from fixed
        yield from itertools.islice(filler_products(start_index=len(fixed) + 1), filler_count)

    with path.open("w", encoding="utf-8") as out:
        out.write(
            '{\n  "formatVersion" : "v1.0",\n  "disclaimer" : "Synthetic benchmark file",\n'
            f'  "offerCode" : "AmazonEC2",\n  "version" : "{VERSION}",\n'
            '  "publicationDate" : "2026-09-10T19:55:14Z",\n  "products" : {\n'
        )
        _write_entries(out, (product_json(p) for p in products()))
        out.write('\n  },\n  "terms" : {\n    "OnDemand" : {\n')
        _write_entries(out, (on_demand_json(p) for p in products()))
        out.write('\n    },\n    "Reserved" : {\n')
        _write_entries(out, (reserved_json(p) for p in products() if p.with_reserved))
        out.write('\n    }\n  },\n  "attributesList" : { }\n}\n')
    return len(fixed) + filler_count


def _write_entries(out: IO[str], entries: Iterator[str]) -> None:
    first = True
    for entry in entries:
        if not first:
            out.write(",\n")
        out.write(entry)
        first = False


def measure_parse(path: Path) -> BenchFigures:
    """Parse the file once; meant to run in a fresh child process so RSS is the parser's."""
    default_instance_map()
    reset_peak_rss()
    rss_before = rss_mib("VmRSS")
    started = time.perf_counter()
    result = parse_offer(path, region=REGION)
    seconds = time.perf_counter() - started
    return BenchFigures(seconds, rss_before, rss_mib("VmHWM"), len(result.prices), len(result.rejections))


def reset_peak_rss() -> None:
    """Forget the peak RSS so far (Linux): a spawned child starts as a fork of its parent."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def rss_mib(field: str) -> float:
    """``VmRSS`` (now) or ``VmHWM`` (peak since the reset) of this process [MiB].

    Falls back to ``ru_maxrss`` (peak over the process's life) where /proc is missing.
    """
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024  # reported in kB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def measure_heap_peak(path: Path) -> float:
    """Peak Python heap while parsing the file [MiB] (tracemalloc; slower than a plain run)."""
    tracemalloc.start()
    parse_offer(path, region=REGION)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / (1 << 20)


def main(argv: list[str] | None = None) -> int:
    """Write, parse and delete the synthetic file; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=500.0, help="file size [MB] (default 500)")
    parser.add_argument("--skip-tracemalloc", action="store_true", help="skip the slower heap-peak run")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="aws-offer-bench-") as tmp:
        path = Path(tmp) / "index.json"
        started = time.perf_counter()
        product_count = write_synthetic_offer(path, size_bytes=int(args.size_mb * 1e6))
        size_mb = path.stat().st_size / 1e6
        print(f"wrote {size_mb:.1f} MB, {product_count} products in {time.perf_counter() - started:.1f} s")
        context = multiprocessing.get_context("spawn")
        with context.Pool(1) as pool:
            figures = pool.apply(measure_parse, (path,))
        print(
            f"parse: {figures.seconds:.1f} s ({size_mb / figures.seconds:.0f} MB/s), "
            f"peak RSS {figures.peak_rss_mib:.0f} MiB ({figures.rss_before_mib:.0f} MiB before "
            "opening the file), "
            f"{figures.prices} prices, {figures.rejections} rejections"
        )
        if not args.skip_tracemalloc:
            with context.Pool(1) as pool:
                heap_mib = pool.apply(measure_heap_peak, (path,))
            print(f"tracemalloc peak Python heap during parse: {heap_mib:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
