import shutil
from tests.reports.test_services import *  # noqa

def test_dump(scenario):
    price = "rent.0.price_usd_per_instance_hour"
    with TestCase.captureOnCommitCallbacks(execute=True):
        sweep_run_start(scenario=scenario, kind=RunKind.SWEEP,
                                spec={"axes": [{"path": price, "low": 30, "high": 90, "count": 30},
                                               {"path": "workload.utilisation", "low": 0.2, "high": 1.0, "count": 20}]})
        sweep_run_start(scenario=scenario, kind=RunKind.MONTE_CARLO,
                                      spec={"samples": 2000, "distributions": [
                                          {"path": price, "kind": "uniform", "low": 40, "high": 80}]})
    for f in ("xlsx", "pdf"):
        e = export_now(scenario, format=f)
        assert e.status == "done", e.error
        shutil.copy(e.file.path, f"/tmp/rep/demo.{f}")
