"""Cash-flow lines of renting: instance hours by billing basis, up-front fees, data charges.

* billed for every hour held (on-demand's default: a cluster kept for the workload):
  instances x hours x price, whatever the utilisation;
* billed for the hours used (the workload scales to zero): instances x hours x utilisation x
  price; spot adds the interruption overhead (extra hours re-running lost work);
* reserved: every hour of each term is paid whatever the utilisation, at the
  price of the year the term started; terms renew until the horizon and the
  hours after the horizon are not counted; ``upfront_usd_per_instance`` is paid
  at the start of each term (months 0, T, 2T, ... before the horizon).

Instance prices move by ``price_change_per_year``; egress and storage do not.
1 TB = 1,000 GB.
"""

from __future__ import annotations

from typing import overload

import numpy as np
from numpy.typing import ArrayLike
from numpy.typing import NDArray

from costmodel.counting import ceil_count
from costmodel.counting import whole
from costmodel.elementwise import Figure
from costmodel.elementwise import as_float
from costmodel.elementwise import zeros_like
from costmodel.inputs import BillingBasis
from costmodel.inputs import Numeric
from costmodel.inputs import PricingModel
from costmodel.inputs import RentOption
from costmodel.inputs import Workload
from costmodel.inputs import billing_basis
from costmodel.timeline import Line
from costmodel.timeline import each_term
from costmodel.timeline import flat_line
from costmodel.timeline import price_factor_sum
from costmodel.timeline import recurring

GB_PER_TB = 1000.0


def instances_needed(accelerators: ArrayLike, accelerators_per_instance: ArrayLike) -> NDArray[np.float64]:
    """Whole instances holding at least the given accelerators [-].

    Examples
    --------
    >>> float(instances_needed(20, 8))
    3.0
    """
    return ceil_count(as_float(accelerators) / whole(accelerators_per_instance))


def accelerators_rented(option: RentOption, workload: Workload) -> Numeric:
    """The option's accelerators doing the workload's work: workload x equivalence factor [-].

    Examples
    --------
    8 H100 on V100 at 7.912 V100 per H100 (dense FP16, 989 / 125 TFLOPS): 63.3 V100.

    >>> round(float(accelerators_rented(RentOption("v100", "on_demand", 3.06, 1, 7.912), Workload(8, 1))), 1)
    63.3
    """
    return as_float(workload.accelerators) * option.equivalence_factor


# Prices as an array (one per price path, in strategies) give an array; one price, a Figure.
@overload
def usage_cost_usd(
    instances: ArrayLike, price_usd_per_instance_hour: NDArray[np.float64], hours: ArrayLike
) -> NDArray[np.float64]: ...
@overload
def usage_cost_usd(
    instances: ArrayLike, price_usd_per_instance_hour: ArrayLike, hours: ArrayLike
) -> Figure: ...
def usage_cost_usd(
    instances: ArrayLike, price_usd_per_instance_hour: ArrayLike, hours: ArrayLike
) -> Figure:
    """Cost of running instances for a number of hours [USD].

    Examples
    --------
    Seed 004: 8 days (192 h) of one p4d.24xlarge at $32.77/h, and on an $11.60/h offer:

    >>> round(float(usage_cost_usd(1, 32.77, 8 * 24)), 2), round(float(usage_cost_usd(1, 11.60, 8 * 24)), 2)
    (6291.84, 2227.2)
    """
    return as_float(instances) * as_float(price_usd_per_instance_hour) * as_float(hours)


def billed_hours_per_month(
    option: RentOption, workload: Workload, utilisation: Numeric | None = None
) -> Numeric:
    """Instance hours paid for each month: every hour held, or the hours used [h/month].

    The hours used are at the workload's utilisation, or at ``utilisation`` where given.

    Examples
    --------
    Spot at 50 % utilisation with a 10 % interruption overhead: 730 x 0.5 x 1.1 = 401.5 h;
    on-demand held at 80 %: all 730 h; on-demand billed for use at 80 %: 730 x 0.8 = 584 h.

    >>> busy = Workload(8, 0.8)
    >>> float(billed_hours_per_month(RentOption("od", "on_demand", 1.0, 8), busy))
    730.0
    >>> used = RentOption("od", "on_demand", 1.0, 8, billing_basis="used")
    >>> round(float(billed_hours_per_month(used, busy)), 6)
    584.0
    """
    hours = as_float(workload.hours_per_month)
    if billing_basis(option) == BillingBasis.HELD:
        return hours
    used = hours * (workload.utilisation if utilisation is None else utilisation)
    if option.pricing_model == PricingModel.SPOT:
        return used * (1.0 + as_float(option.spot_interruption_overhead))
    return used


def data_usd_per_month(tb: ArrayLike, usd_per_gb: Numeric) -> Numeric:
    """Monthly charge for data volumes priced per GB [USD/month].

    Examples
    --------
    50 TB of egress at $0.09/GB: 50 x 1,000 x 0.09 = $4,500.

    >>> round(float(data_usd_per_month(50, 0.09)), 2)
    4500.0
    """
    return as_float(tb) * GB_PER_TB * usd_per_gb


def rent_lines(option: RentOption, workload: Workload, horizon_months: NDArray[np.float64]) -> list[Line]:
    """The rent cash-flow lines, each able to add itself into a monthly array.

    Lines: ``compute`` (instance hours), ``upfront`` (reserved terms; zero
    otherwise), ``egress`` and ``storage``.
    """
    instances = instances_needed(accelerators_rented(option, workload), option.accelerators_per_instance)
    hours = billed_hours_per_month(option, workload)
    compute = usage_cost_usd(instances, option.price_usd_per_instance_hour, hours)
    reserved = option.pricing_model == PricingModel.RESERVED
    lock = whole(option.commitment_months) if reserved else 1.0
    growth = option.price_change_per_year
    upfront = instances * option.upfront_usd_per_instance
    upfront_terms = (
        (each_term(upfront, lock, horizon_months=horizon_months, growth_per_year=growth),) if reserved else ()
    )
    return [
        Line("compute", (recurring(compute, growth_per_year=growth, price_lock_months=lock),)),
        Line("upfront", upfront_terms),
        flat_line("egress", data_usd_per_month(option.egress_tb_per_month, option.egress_usd_per_gb)),
        flat_line("storage", data_usd_per_month(option.storage_tb, option.storage_usd_per_gb_month)),
    ]


def rent_utilisation_slope_usd(
    option: RentOption, workload: Workload, horizon_months: NDArray[np.float64]
) -> Figure:
    """Change of the option's total cost per unit of utilisation [USD]; 0 when every hour held
    is paid."""
    if billing_basis(option) == BillingBasis.HELD:
        return zeros_like(horizon_months)
    instances = instances_needed(accelerators_rented(option, workload), option.accelerators_per_instance)
    per_month = usage_cost_usd(
        instances, option.price_usd_per_instance_hour, billed_hours_per_month(option, workload, 1.0)
    )
    return per_month * price_factor_sum(option.price_change_per_year, horizon_months)
