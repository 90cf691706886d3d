from tests.tco.conftest import api  # noqa: F401
from tests.tco.conftest import planner  # noqa: F401
