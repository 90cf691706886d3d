"""The provider offer -> catalog accelerator map, read from ``catalog/data/instance_map.yaml``."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

DEFAULT_INSTANCE_MAP_PATH = Path(__file__).resolve().parent.parent / "data" / "instance_map.yaml"
SLUG_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# Providers whose offers are keyed by one name (instance type, SKU name or GPU type id).
KEYED_PROVIDERS = {
    "aws": "instances",
    "azure": "instances",
    "lambda": "instances",
    "runpod": "gpu_types",
}


class InstanceMapError(ValueError):
    """instance_map.yaml is inconsistent (unknown slug, bad count, missing section)."""


@dataclass(frozen=True)
class AcceleratorMatch:
    """The accelerator an offer carries and how many per instance."""

    accelerator_slug: str
    accelerators_per_instance: int


@dataclass(frozen=True)
class GcpMachineType(AcceleratorMatch):
    """A GCP machine type: the accelerators it carries and the components its hourly price is made of."""

    name: str
    gpu_name: str
    family: str | None  # CPU/RAM SKU family ("A3"); None when the GPU SKU prices the whole VM
    vcpus: int
    memory_gib: int
    local_ssd_gib: int


@dataclass(frozen=True)
class InstanceMap:
    """Every provider's offer -> accelerator mapping, validated against the slug list."""

    accelerator_slugs: frozenset[str]
    aws_accelerator_families: frozenset[str]
    offers: Mapping[str, Mapping[str, AcceleratorMatch]]  # provider -> offer key -> match
    gcp_gpus: Mapping[str, str]  # GPU name in a SKU description -> slug
    gcp_machine_types: tuple[GcpMachineType, ...]

    def lookup(self, provider: str, key: str) -> AcceleratorMatch | None:
        """The accelerator of ``key`` (instance type, armSkuName, GPU type id), if mapped."""
        return self.offers[provider].get(key)

    @classmethod
    def load(cls, path: Path = DEFAULT_INSTANCE_MAP_PATH) -> InstanceMap:
        """Read and validate an instance map file."""
        with path.open(encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
        return cls.from_data(data, origin=str(path))

    @classmethod
    def from_data(cls, data: Any, *, origin: str = "instance map") -> InstanceMap:
        """Build the map from parsed YAML; raises InstanceMapError naming the bad entry."""
        if not isinstance(data, dict):
            raise InstanceMapError(f"{origin}: expected a mapping at the top level")
        slugs = frozenset(_section(data, "accelerators", origin, list))
        for slug in slugs:
            if not isinstance(slug, str) or not SLUG_PATTERN.match(slug):
                raise InstanceMapError(f"{origin}: accelerator slug {slug!r} is not lowercase-dashed")
        offers = {
            provider: {
                str(key): _match(entry, slugs, f"{origin}: {provider}.{key}")
                for key, entry in _section(
                    _section(data, provider, origin, dict), section, origin, dict
                ).items()
            }
            for provider, section in KEYED_PROVIDERS.items()
        }
        aws = _section(data, "aws", origin, dict)
        gcp = _section(data, "gcp", origin, dict)
        gcp_gpus = {
            str(name): _known_slug(slug, slugs, f"{origin}: gcp.gpus.{name}")
            for name, slug in _section(gcp, "gpus", origin, dict).items()
        }
        machine_types = tuple(
            _machine_type(name, entry, gcp_gpus, f"{origin}: gcp.machine_types.{name}")
            for name, entry in _section(gcp, "machine_types", origin, dict).items()
        )
        return cls(
            accelerator_slugs=slugs,
            aws_accelerator_families=frozenset(_section(aws, "accelerator_families", origin, list)),
            offers=offers,
            gcp_gpus=gcp_gpus,
            gcp_machine_types=machine_types,
        )

    def slugs_in_use(self) -> frozenset[str]:
        """Slugs some offer maps to."""
        used = {m.accelerator_slug for by_key in self.offers.values() for m in by_key.values()}
        return frozenset(used | set(self.gcp_gpus.values()))


@functools.cache
def default_instance_map() -> InstanceMap:
    """The map shipped in ``catalog/data/instance_map.yaml`` (read once per process)."""
    return InstanceMap.load()


def _section(data: dict[str, Any], key: str, origin: str, kind: type) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise InstanceMapError(f"{origin}: {key!r} must be a {kind.__name__}")
    return value


def _known_slug(slug: Any, slugs: frozenset[str], where: str) -> str:
    if slug not in slugs:
        raise InstanceMapError(f"{where}: accelerator {slug!r} is not listed under 'accelerators'")
    return str(slug)


def _positive_int(value: Any, where: str, *, allow_zero: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < (0 if allow_zero else 1):
        kind = "non-negative" if allow_zero else "positive"
        raise InstanceMapError(f"{where}: {value!r} is not a {kind} integer")
    return value


def _match(entry: Any, slugs: frozenset[str], where: str) -> AcceleratorMatch:
    if not isinstance(entry, dict):
        raise InstanceMapError(f"{where}: expected {{accelerator, count}}")
    return AcceleratorMatch(
        accelerator_slug=_known_slug(entry.get("accelerator"), slugs, where),
        accelerators_per_instance=_positive_int(entry.get("count"), f"{where}.count"),
    )


def _machine_type(name: Any, entry: Any, gcp_gpus: Mapping[str, str], where: str) -> GcpMachineType:
    if not isinstance(entry, dict):
        raise InstanceMapError(f"{where}: expected a mapping")
    gpu_name = entry.get("gpu")
    if gpu_name not in gcp_gpus:
        raise InstanceMapError(f"{where}: gpu {gpu_name!r} is not listed under gcp.gpus")
    family = entry.get("family")
    if family is not None and not isinstance(family, str):
        raise InstanceMapError(f"{where}: family must be a string or null")
    component_minimum = family is None  # a whole-VM slice has no CPU/RAM components
    return GcpMachineType(
        name=str(name),
        gpu_name=gpu_name,
        accelerator_slug=gcp_gpus[gpu_name],
        accelerators_per_instance=_positive_int(entry.get("count"), f"{where}.count"),
        family=family,
        vcpus=_positive_int(entry.get("vcpus"), f"{where}.vcpus", allow_zero=component_minimum),
        memory_gib=_positive_int(
            entry.get("memory_gib"), f"{where}.memory_gib", allow_zero=component_minimum
        ),
        local_ssd_gib=_positive_int(entry.get("local_ssd_gib"), f"{where}.local_ssd_gib", allow_zero=True),
    )
