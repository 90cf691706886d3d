"""Writing a team's contract price book with its discounts and savings plans, all or nothing:
the API's serializer (tco/api/price_books.py) checks the body and calls these."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from tco.models import ContractDiscount
from tco.models import ContractPriceBook
from tco.models import SavingsPlanCommitment
from teams.models import Team
from teams.selectors import team_for_new_object


@transaction.atomic
def price_book_create(*, user: AbstractBaseUser, team: Team | None, fields: dict[str, Any],
                      discounts: Sequence[dict[str, Any]] = (),
                      savings_plans: Sequence[dict[str, Any]] = ()) -> ContractPriceBook:
    """A new book of ``team`` (None: the user's only team) with its terms.

    Raises
    ------
    TeamChoiceError
        ``team`` is None and the user is in several teams, or none they may write in.
    """
    team = team_for_new_object(user, team=team)
    book = ContractPriceBook.objects.create(team=team, **fields)
    _write_terms(book, discounts, savings_plans)
    return book


@transaction.atomic
def price_book_update(*, book: ContractPriceBook, fields: dict[str, Any],
                      discounts: Sequence[dict[str, Any]] | None = None,
                      savings_plans: Sequence[dict[str, Any]] | None = None) -> ContractPriceBook:
    """The book with ``fields`` changed; discounts or savings plans given replace the book's
    (None: kept as they are)."""
    for name, value in fields.items():
        setattr(book, name, value)
    book.save()
    if discounts is not None:
        book.discounts.all().delete()
        _write_terms(book, discounts, [])
    if savings_plans is not None:
        book.savings_plans.all().delete()
        _write_terms(book, [], savings_plans)
    return book


def _write_terms(book: ContractPriceBook, discounts: Sequence[dict[str, Any]],
                 plans: Sequence[dict[str, Any]]) -> None:
    ContractDiscount.objects.bulk_create(ContractDiscount(book=book, **row) for row in discounts)
    SavingsPlanCommitment.objects.bulk_create(SavingsPlanCommitment(book=book, **row) for row in plans)
