"""What a self-hosted fleet's tokens cost by kind, as an API prices them: input, cached input and
output apart, from the fleet's cost and the rates it prefills, reads the cache and decodes at.

A replica's time goes to three kinds of work (`costmodel.sizing.throughput`):

- **input** (uncached): prefill, compute-bound: P = uncached input tokens / prefill seconds of
  one request;
- **cached input**: a prefix-cache hit skips its prefill; its keys and values are read once from
  the cache instead: K = replica bandwidth x the fitted bandwidth share / KV bytes per token;
- **output**: decode: D = concurrency / seconds per decode step.

Each kind costs the replica's cost per second over its rate: USD per million = cost per
replica-second / rate x 10^6. A request's cost is then input x (1 - cached share) x input price
+ input x cached share x cached price + output x output price; the throughput estimate leaves the
cache read out (it is a few thousandths of a prefill), so the request's cost is the estimate's
cost per million output tokens x output + that read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.metrics import SECONDS_PER_HOUR
from costmodel.sizing.memory import kv_cache_memory_gb
from costmodel.sizing.results import SizingResult
from costmodel.sizing.throughput import Efficiency
from costmodel.sizing.throughput import ServingSetup
from costmodel.sizing.throughput import ThroughputEstimate
from costmodel.sizing.units import BYTES_PER_GB

PER_MILLION = 1e6


@dataclass(frozen=True)
class TokenKindCosts(SizingResult):
    """USD per million tokens of each kind on a self-hosted replica, and the rates behind them."""

    usd_per_replica_hour: float
    input_tokens_per_s_per_replica: float
    cached_input_tokens_per_s_per_replica: float
    output_tokens_per_s_per_replica: float
    usd_per_million_input: float
    usd_per_million_cached_input: float
    usd_per_million_output: float
    cached_input_share: float
    input_tokens_per_request: float
    output_tokens_per_request: float
    usd_per_request: float

    def cost_of(self, input_tokens: float, cached_input_tokens: float,
                output_tokens: float) -> float:
        """USD of a number of tokens of each kind."""
        return (input_tokens * self.usd_per_million_input
                + cached_input_tokens * self.usd_per_million_cached_input
                + output_tokens * self.usd_per_million_output) / PER_MILLION


def token_kind_costs(setup: ServingSetup, estimate: ThroughputEstimate, efficiency: Efficiency,
                     usd_per_accelerator_hour: float) -> TokenKindCosts:
    """Cost per million input, cached input and output tokens of one replica (``setup``, whose
    ``estimate`` gives its prefill and decode times) at a price per accelerator-hour.

    Examples
    --------
    A replica of 2 devices at USD 2 an hour each costs USD 4 an hour, 1/900 a second. Prefilling
    2,000 input tokens/s, input costs (1/900) / 2,000 x 10^6 = USD 0.556 per million; decoding
    500 output tokens/s, output costs USD 2.22 per million.
    """
    devices = float(np.asarray(setup.devices_per_replica))
    per_hour = usd_per_accelerator_hour * devices
    per_second = per_hour / SECONDS_PER_HOUR
    inputs, outputs = float(np.asarray(setup.input_tokens)), float(np.asarray(setup.output_tokens))
    cached = float(np.asarray(setup.cached_input_share))
    # The estimate's prefill rate counts the whole prompt over the time of its uncached part.
    prefill_rate = float(estimate.prefill_tokens_per_s_per_replica) * (1.0 - cached)
    kv_bytes = float(kv_cache_memory_gb(setup.model, 1.0, 1.0, setup.kv_precision)) * BYTES_PER_GB
    bandwidth = (float(np.asarray(setup.accelerator.memory_bandwidth_gb_per_s)) * BYTES_PER_GB
                 * devices * float(np.asarray(efficiency.memory_bandwidth)))
    cached_rate = bandwidth / kv_bytes
    decode_rate = float(estimate.decode_tokens_per_s_per_replica)
    prefill_price, cached_price, decode_price = (per_second / rate * PER_MILLION
                                                 for rate in (prefill_rate, cached_rate, decode_rate))
    request = (inputs * (1.0 - cached) * prefill_price + inputs * cached * cached_price
               + outputs * decode_price) / PER_MILLION
    return TokenKindCosts(per_hour, prefill_rate, cached_rate, decode_rate, prefill_price, cached_price,
                          decode_price, cached, inputs, outputs, request)
