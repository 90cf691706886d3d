"""Large quote files for the import tests and the measurements: one new offering, many prices."""
from __future__ import annotations

HEADER = "kind,provider,instance_type,region,pricing_model,amount,currency,as_of,source,accelerator,"\
         "accelerators_per_instance\n"


def offering_rows(count: int, *, bad_rows: dict[int, str] | None = None) -> bytes:
    """``count`` prices of one new offering, 50.00 USD/h and up by a cent, one a day from 2026-01-01."""
    lines = []
    for i in range(count):
        amount = (bad_rows or {}).get(i + 2, f"{50 + i / 100:.2f}")  # the header is row 1
        day = f"2026-{1 + i // 28 % 12:02d}-{1 + i % 28:02d}"
        lines.append(f"offering,aws,p9.quote,us-east-1,on_demand,{amount},USD,{day},"
                     f"Vendor X quote {i // 336},h100-sxm-80gb,8")
    return (HEADER + "\n".join(lines) + "\n").encode()
