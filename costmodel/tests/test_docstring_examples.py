"""The worked examples in the engine's docstrings run and give the figures they show."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

ENGINE_MODULES = [
    "costmodel.counting",
    "costmodel.elementwise",
    "costmodel.figures",
    "costmodel.finance",
    "costmodel.footprint",
    "costmodel.market_resale",
    "costmodel.metrics",
    "costmodel.power",
    "costmodel.power_caps",
    "costmodel.price_paths",
    "costmodel.rent",
    "costmodel.sites",
    "costmodel.term_structure",
    "costmodel.timeline",
    "costmodel.vocabulary",
]


@pytest.mark.parametrize("name", ENGINE_MODULES)
def test_docstring_examples_hold(name: str) -> None:
    module = importlib.import_module(name)
    outcome = doctest.testmod(module, extraglobs={"np": np}, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert outcome.attempted > 0
    assert outcome.failed == 0
