"""Pages of every API list: ``?page=N`` and ``?page_size=N`` (default 50, at most 500)."""
from __future__ import annotations

from rest_framework.pagination import PageNumberPagination

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500


class SizedPageNumberPagination(PageNumberPagination):
    """Page numbers with a page size the client may choose up to ``MAX_PAGE_SIZE`` (larger asks
    get ``MAX_PAGE_SIZE`` rows, as DRF caps it)."""

    page_size = DEFAULT_PAGE_SIZE
    page_size_query_param = "page_size"
    page_size_query_description = f"Rows per page: {DEFAULT_PAGE_SIZE} by default, at most {MAX_PAGE_SIZE}."
    max_page_size = MAX_PAGE_SIZE
