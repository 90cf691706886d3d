"""The form renderer skips empty error lists only: an error is still shown."""

from __future__ import annotations

from django import forms
from django.forms.renderers import get_default_renderer

from core.form_renderer import FormRenderer


class Quantity(forms.Form):
    count = forms.IntegerField()


def test_errors_still_show_and_an_empty_list_is_nothing():
    wrong = Quantity({"count": "x"})
    right = Quantity({"count": "3"})

    assert isinstance(get_default_renderer(), FormRenderer)
    assert not wrong.is_valid() and right.is_valid()
    assert str(wrong["count"].errors) == (
        '<ul class="errorlist" id="id_count_error"><li>Enter a whole number.</li></ul>')
    assert str(right["count"].errors) == ""
    assert "Enter a whole number." in wrong.as_div()
