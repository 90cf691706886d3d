"""The side-by-side comparison as downloads (PDF, workbook), for the API and the admin alike."""
from __future__ import annotations

from collections.abc import Sequence

from django.http import HttpResponse
from django.utils import timezone

from reports.builders.excel import XLSX_CONTENT_TYPE
from reports.builders.excel.side_by_side import build_side_by_side_workbook
from reports.builders.pdf import PDF_CONTENT_TYPE
from reports.builders.pdf import build_side_by_side_pdf
from tco.services.side_by_side import Column


def side_by_side_pdf_response(columns: Sequence[Column], *, author: str) -> HttpResponse:
    """The key-figures table and the cumulative-cost chart as a PDF download."""
    response = HttpResponse(build_side_by_side_pdf(columns, author=author), content_type=PDF_CONTENT_TYPE)
    response["Content-Disposition"] = 'attachment; filename="scenarios-side-by-side.pdf"'
    return response


def side_by_side_workbook_response(columns: Sequence[Column]) -> HttpResponse:
    """The side-by-side comparison as an .xlsx download."""
    now = timezone.now()
    response = HttpResponse(build_side_by_side_workbook(columns, generated_at=now),
                            content_type=XLSX_CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="scenarios-side-by-side-{now:%Y%m%d-%H%M}.xlsx"'
    return response
