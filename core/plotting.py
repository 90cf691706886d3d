"""matplotlib for a server: no display, and text drawn as written.

Charts carry user text (scenario and rent option names). matplotlib parses ``$...$`` in any
label as math, so a name like ``Deal $5 / $8`` would be typeset and an unbalanced one raises
ParseSyntaxException while a page or report is drawn; none of our labels is math.
"""
import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["text.parse_math"] = False
