"""Pages of what grows without end: a scenario's history is served, and compared, a page at a time."""
from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination

from core.limits import HISTORY_PAGE_SIZE
from core.limits import MAX_HISTORY_PAGE_SIZE


class HistoryPagination(PageNumberPagination):
    """``HISTORY_PAGE_SIZE`` saves a page; ``?page_size=`` up to ``MAX_HISTORY_PAGE_SIZE``."""

    page_size = HISTORY_PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = MAX_HISTORY_PAGE_SIZE

    def get_page_size(self, request) -> int:
        asked = request.query_params.get(self.page_size_query_param)
        if asked is None:
            return self.page_size
        if not asked.isdigit() or not 1 <= int(asked) <= self.max_page_size:
            raise ValidationError({self.page_size_query_param: [
                f"must be a whole number from 1 to {self.max_page_size} (the history page limit)"]})
        return int(asked)
