"""PostgreSQL tells listeners on ``tco_run_<id>`` when a run's status or counted chunks change,
or the run is deleted (tco/services/run_waits.py): a client waiting for a run is woken by its
commit instead of polling the row. Other databases (SQLite for ``make run``) get nothing and
their clients poll. Installed by the migrations (0031 and the squashed 0001)."""
from __future__ import annotations

from typing import Any

CREATE = ["""
CREATE FUNCTION tco_sweeprun_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Sent when the transaction commits; the same run's notifications in one transaction are one.
    PERFORM pg_notify('tco_run_' || (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END), '');
    RETURN NULL;
END $$
""", """
CREATE TRIGGER tco_sweeprun_changed AFTER UPDATE ON tco_sweeprun FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.chunks_done IS DISTINCT FROM NEW.chunks_done)
    EXECUTE FUNCTION tco_sweeprun_notify()
""", """
CREATE TRIGGER tco_sweeprun_deleted AFTER DELETE ON tco_sweeprun FOR EACH ROW
    EXECUTE FUNCTION tco_sweeprun_notify()
"""]
DROP = ["DROP TRIGGER tco_sweeprun_deleted ON tco_sweeprun",
        "DROP TRIGGER tco_sweeprun_changed ON tco_sweeprun",
        "DROP FUNCTION tco_sweeprun_notify()"]


def execute_on_postgresql(apps: Any, schema_editor: Any, *, statements: list[str]) -> None:
    """A migration step: run ``statements`` on PostgreSQL, nothing elsewhere."""
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
