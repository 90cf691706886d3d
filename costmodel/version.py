"""Version of the cost model; reports and stored results record it, so bump it when figures change."""

ENGINE_VERSION = "1.0.0"
