"""The admin of scenarios (with their result page), alerts, plans and runs."""
from tco.admin import alerts  # noqa: F401  (each module registers its admins)
from tco.admin import plans  # noqa: F401
from tco.admin import price_books  # noqa: F401
from tco.admin import runs  # noqa: F401
from tco.admin import scenarios  # noqa: F401
