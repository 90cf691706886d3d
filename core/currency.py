"""The currencies of prices, rates and reports: below every app (teams report in one, catalog
prices are quoted in one), so that none imports another for it."""
from django.db import models


class Currency(models.TextChoices):
    """ISO 4217 currencies a price may be quoted in."""

    USD = "USD", "US dollar"
    EUR = "EUR", "Euro"
    GBP = "GBP", "Pound sterling"
    JPY = "JPY", "Japanese yen"
    CNY = "CNY", "Chinese yuan"
    KRW = "KRW", "South Korean won"
    INR = "INR", "Indian rupee"
    CAD = "CAD", "Canadian dollar"
    AUD = "AUD", "Australian dollar"
    CHF = "CHF", "Swiss franc"
    SEK = "SEK", "Swedish krona"
    SGD = "SGD", "Singapore dollar"
