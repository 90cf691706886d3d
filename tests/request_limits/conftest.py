from tests.tco.conftest import api  # noqa: F401
from tests.tco.conftest import planner  # noqa: F401
from tests.tco.conftest import run_scenario  # noqa: F401
from tests.teams.conftest import alpha_scenario  # noqa: F401
from tests.teams.conftest import analyst  # noqa: F401
