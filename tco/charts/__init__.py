"""Charts, one module per kind, drawn the same way for the admin (inline SVG) and the PDF (PNG).

``canvas`` holds what they share (figure, money axis, colours, output); each other module draws
one kind from the data both callers have: an evaluation's result, a run's stored summary or a
plan's stored result. Axis and row labels come from ``costmodel.vocabulary``.
"""
