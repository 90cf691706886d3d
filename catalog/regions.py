"""Where a cloud region is: its country and the place people call it by, for the regions the
catalog's offerings name.

A region code alone does not say which jurisdiction its data sits in; this table does, for the
providers' own codes (AWS, Azure, Google Cloud, Nebius). Regions of one EU member state and
another share a jurisdiction (the EU's data-protection law and single market); otherwise the
country is the jurisdiction. A region this table does not know (``global``, ``unspecified``, a
team's own code) has no jurisdiction, and nothing is said about it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: EU member states (ISO 3166-1 alpha-2): one jurisdiction for data residency.
EU_COUNTRIES = frozenset({
    "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE",
    "IT", "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
})

COUNTRY_NAMES = {"US": "the United States", "DE": "Germany", "GB": "the United Kingdom",
                 "SE": "Sweden", "ES": "Spain", "NL": "the Netherlands", "BE": "Belgium",
                 "FI": "Finland", "FR": "France", "IE": "Ireland"}


@dataclass(frozen=True)
class Place:
    """A region's country (ISO 3166-1 alpha-2) and the place it is named after."""

    country: str
    name: str


#: The providers' region codes, as their price lists write them.
REGIONS = {
    # AWS
    "us-east-1": Place("US", "N. Virginia"), "us-east-2": Place("US", "Ohio"),
    "us-west-2": Place("US", "Oregon"), "eu-central-1": Place("DE", "Frankfurt"),
    "eu-west-1": Place("IE", "Ireland"), "eu-west-2": Place("GB", "London"),
    "eu-north-1": Place("SE", "Stockholm"), "eu-south-2": Place("ES", "Spain"),
    # Azure
    "eastus": Place("US", "Virginia"), "eastus2": Place("US", "Virginia"),
    "westeurope": Place("NL", "Netherlands"), "uksouth": Place("GB", "London"),
    "germanywestcentral": Place("DE", "Frankfurt"),
    # Google Cloud
    "us-central1": Place("US", "Iowa"), "us-east4": Place("US", "N. Virginia"),
    "us-east5": Place("US", "Columbus"), "europe-west1": Place("BE", "Belgium"),
    "europe-west3": Place("DE", "Frankfurt"), "europe-west4": Place("NL", "Netherlands"),
    # Nebius
    "eu-north1": Place("FI", "Finland"), "eu-west1": Place("FR", "Paris"),
}


def place_of(region: str) -> Place | None:
    """Where ``region`` is, or None when the catalog does not know the code."""
    return REGIONS.get(region)


def jurisdiction(country: str) -> str:
    """The jurisdiction of data kept in ``country``: 'EU' for a member state, else the country."""
    country = country.upper()
    return "EU" if country in EU_COUNTRIES else country


def country_words(country: str) -> str:
    """'Germany (EU)', 'the United States'."""
    country = country.upper()
    name = COUNTRY_NAMES.get(country, country)
    return f"{name} (EU)" if country in EU_COUNTRIES else name
