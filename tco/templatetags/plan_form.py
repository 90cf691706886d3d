"""``form|fields_named:"a b c"``: a form's bound fields in the order named (the plan form's sections)."""
from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def fields_named(form, names: str) -> list:
    return [form[name] for name in names.split()]
