"""What a decision sends to the tools that run the money, and what it reads back from them.

``focus``: projected monthly costs of a scenario's options or of a plan as FinOps FOCUS 1.2 rows
(CSV and Parquet); ``opencost``: an owned fleet's hourly cost as OpenCost custom pricing and
SkyPilot Kubernetes pricing; ``pricing_terms``: the one place that says in which currency and at
which list and contracted prices a projected cost is billed.
"""
