"""Charts as a reader sees them: labels inside the axes, titles inside the figure, legends off the
lines, whole months on colour bars, and the resale value the engine counts."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Annotation

import costmodel as engine
from costmodel.examples import flat_scenario
from costmodel.examples import rich_scenario
from costmodel.figures import scalar
from costmodel.inputs import RentOption
from costmodel.residual import resale_share
from tco.charts.breakeven_heatmap import breakeven_heatmap_figure
from tco.charts.cumulative_cost import cumulative_cost_figure
from tco.charts.residual_value import residual_value_figure
from tco.charts.saving_histogram import saving_histogram_figure
from tco.charts.side_by_side import side_by_side_figure
from tco.services.side_by_side import Column

LONG_NAME = "AWS p5.48xlarge (8x H100 SXM5 80 GB), cheapest region, on-demand, reserved 1 year"


def _drawn(figure: Figure):
    """The figure laid out as saved, and its renderer (extents are in display pixels)."""
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas.get_renderer()


def _inside(inner, outer) -> bool:
    return (inner.x0 >= outer.x0 - 0.5 and inner.x1 <= outer.x1 + 0.5
            and inner.y0 >= outer.y0 - 0.5 and inner.y1 <= outer.y1 + 0.5)


def test_a_breakeven_in_the_last_month_is_labelled_inside_the_axes():
    # Buying: 32 x $300,000 + $23,827.20 a month; renting 32 instances x 730 h x $12.50 =
    # $292,000 a month. Renting costs more from month 9,600,000 / 268,172.80 = 35.8, so month 36.
    rent = RentOption(LONG_NAME, "on_demand", price_usd_per_instance_hour=12.5, accelerators_per_instance=8.0)
    result = engine.evaluate(flat_scenario(rent=(rent,)))
    figure = cumulative_cost_figure(result)
    renderer = _drawn(figure)
    ax = figure.axes[0]
    (label,) = [child for child in ax.get_children() if isinstance(child, Annotation)]
    assert label.get_text() == "breakeven month 36"
    assert _inside(label.get_window_extent(renderer), ax.get_window_extent(renderer))


def test_breakevens_in_the_same_or_nearby_months_get_labels_that_do_not_overlap():
    # Two offers at the same price break even in the same month; a dearer one a few months sooner.
    same = [RentOption(name, "on_demand", price_usd_per_instance_hour=20.0, accelerators_per_instance=8.0)
            for name in ("on-demand A", "on-demand B")]
    dearer = RentOption("on-demand C", "on_demand", price_usd_per_instance_hour=24.0,
                        accelerators_per_instance=8.0)
    result = engine.evaluate(flat_scenario(rent=(*same, dearer)))
    months = [int(scalar(option.breakeven_month)) for option in result.rent]
    assert months[0] == months[1] and months[2] < months[0] - 1  # the case this test is about

    figure = cumulative_cost_figure(result)
    renderer = _drawn(figure)
    ax = figure.axes[0]
    labels = [child for child in ax.get_children() if isinstance(child, Annotation)]
    boxes = [label.get_window_extent(renderer) for label in labels]

    assert sorted(label.get_text() for label in labels) == [
        f"breakeven month {months[2]}", f"breakeven month {months[0]}"]
    assert not boxes[0].overlaps(boxes[1])
    assert all(_inside(box, ax.get_window_extent(renderer)) for box in boxes)


def _heatmap(months_range: tuple[int, int]) -> dict:
    low, high = months_range
    grid = [[low, low, None], [high, low, high]]
    return {"breakeven_month": {LONG_NAME: grid}, "x_path": "buy.system_price_usd",
            "x_values": [250_000.0, 300_000.0, 350_000.0],
            "y_path": "workload.utilisation", "y_values": [0.5, 0.9]}


def test_the_heat_map_colour_bar_shows_whole_months_only():
    figure = breakeven_heatmap_figure(_heatmap((35, 36)))
    _drawn(figure)
    colour_bar = figure.axes[1]
    labels = [tick.get_text() for tick in colour_bar.get_yticklabels() if tick.get_text()]
    assert labels == ["35", "36"]


def test_long_rent_option_names_in_heat_map_and_histogram_titles_stay_inside_the_figure():
    histogram = {"histogram": {"bin_edges_usd": [-1e5, 0.0, 1e5], "counts": [3, 7]},
                 "npv_saving_usd": {"p10": -5e4, "p50": 2e4, "p90": 8e4}, "buy_wins_probability": 0.7}
    heat_map = breakeven_heatmap_figure(_heatmap((20, 30)))
    for figure in (heat_map, saving_histogram_figure({LONG_NAME: histogram})):
        renderer = _drawn(figure)
        title = figure.axes[0].title
        assert LONG_NAME in " ".join(title.get_text().split())  # wrapped, nothing dropped
        assert _inside(title.get_window_extent(renderer), figure.bbox)


def test_the_side_by_side_legend_sits_outside_the_plotted_lines():
    months = range(37)
    columns = [Column(index, f"Scenario {index}", 1, "draft", 36, winner="Buy", margin_usd=0.0, options=(),
                      left_out=(), buy_total_usd=0.0, buy_npv_usd=0.0, cheapest_rent=LONG_NAME,
                      rent_npv_usd=0.0, npv_saving_usd=0.0, breakeven_month=None,
                      buy_cost_per_useful_accelerator_hour_usd=None, buy_cost_per_million_tokens_usd=None,
                      buy_goodput_share=None, buy_tonnes_co2e_per_year=0.0,
                      buy_cumulative_usd=tuple(300_000.0 + 9_000.0 * index * m for m in months),
                      rent_cumulative_usd=tuple(20_000.0 * index * m for m in months))
               for index in (1, 2, 3)]
    figure = side_by_side_figure(columns)
    renderer = _drawn(figure)
    ax = figure.axes[0]
    legend = ax.get_legend().get_window_extent(renderer)
    assert len(ax.get_legend().get_texts()) == 6
    assert not legend.overlaps(ax.get_window_extent(renderer))
    assert _inside(legend, figure.bbox)


def _resale(figure: Figure) -> tuple[list, np.ndarray]:
    """The resale line(s) drawn by age, and the horizon marker's (month, USD)."""
    ax = figure.axes[0]
    lines = [line for line in ax.get_lines() if line.get_label().startswith("Resale value")]
    (marker,) = ax.collections
    return lines, marker.get_offsets()[0]


def test_with_only_a_residual_share_the_resale_value_is_the_engines_horizon_point_not_a_flat_line():
    scenario = rich_scenario()  # residual_value_share 0.2, no curve, no decline rate
    result = engine.evaluate(scenario)
    lines, (month, usd) = _resale(residual_value_figure(scenario, result))
    assert lines == []
    assert month == 60
    # 20 % of the systems' capex at the horizon, the figure the buy total counts.
    assert usd == pytest.approx(0.2 * scalar(result.buy.capex_usd["systems"]))
    assert usd == pytest.approx(scalar(result.buy.residual.resale_value_usd))


def test_with_a_decline_rate_the_resale_curve_is_the_engines_and_ends_at_its_horizon_value():
    rich = rich_scenario()
    buy = replace(rich.buy, residual_decline_per_year=0.35, next_generation_launch_month=24.0,
                  next_generation_value_drop=0.3)
    scenario = replace(rich, buy=buy)
    result = engine.evaluate(scenario)
    (line,), (month, usd) = _resale(residual_value_figure(scenario, result))
    systems_usd = scalar(result.buy.capex_usd["systems"])
    np.testing.assert_allclose(line.get_ydata(), systems_usd * resale_share(scenario.buy, np.arange(61.0)))
    # Month 60: 0.65 ** 5 x (1 - 0.3) of the systems' capex, after the next generation's drop.
    assert usd == pytest.approx(systems_usd * 0.65**5 * 0.7)
    assert line.get_ydata()[-1] == pytest.approx(usd)
    assert usd == pytest.approx(scalar(result.buy.residual.resale_value_usd))


def test_the_cumulative_cost_legend_reads_at_the_tick_labels_size_and_stays_inside_the_figure():
    # The page shows this chart at about two thirds of its size: a legend smaller than the
    # axis numbers (it was 8 points against their 10) could not be read there.
    options = tuple(RentOption(f"{LONG_NAME} {n}", "on_demand", price_usd_per_instance_hour=12.5,
                               accelerators_per_instance=8.0) for n in range(4))
    figure = cumulative_cost_figure(engine.evaluate(flat_scenario(rent=options)))
    renderer = _drawn(figure)
    (legend,) = figure.legends
    tick_points = figure.axes[0].get_xticklabels()[0].get_fontsize()
    assert [text.get_fontsize() for text in legend.get_texts()] == [tick_points] * 5  # buy + 4
    assert _inside(legend.get_window_extent(renderer), figure.bbox)
