"""What one request may store and what one response may read, declared once.

Beside the other request limits (the body size, DATA_UPLOAD_MAX_MEMORY_SIZE in settings; the JSON
depth, core/parsers.py; the run limits, tco/runs/limits.py; the engine's horizon and options,
costmodel/inputs.py). The API, the admin and the commands refuse past these with a 400 (a form
error, a non-zero exit) whose message names the limit.
"""
from __future__ import annotations

# A curve of one point per month and one for month 0 (a residual value curve [[month, share]]):
# the engine's own limit, which it checks for every caller.
from costmodel.inputs import MAX_CURVE_POINTS  # noqa: F401

# A list endpoint serialises summaries (details are on each object), 50 to a page
# (REST_FRAMEWORK["PAGE_SIZE"]): scenarios without their options, curves and description
# (tco/api/views.py), runs without their spec (an axis may list 10^6 values), plans without
# their spec, result and draws (tco/api/plans.py), quote imports without each bad row
# (catalog/api/views.py); none of these is read from the database for a list either.

# A description or note: a few pages of text. Names and other short texts have their own
# max_length on the model.
MAX_TEXT_CHARS = 10_000
# No string in a request body is longer (a text field, or a plan's demand as CSV text).
MAX_BODY_TEXT_CHARS = 100_000

# A scenario's history is read a page at a time: each page holds this many saves (and diffs
# each against the save before it), ?page_size= up to the maximum.
HISTORY_PAGE_SIZE = 20
MAX_HISTORY_PAGE_SIZE = 100

# Characters refused in any text a request sends: the C0 controls and DEL, except tab, line
# feed and carriage return. PostgreSQL text cannot hold NUL at all; the others are never typed.
ALLOWED_CONTROL_CHARACTERS = frozenset("\t\n\r")
