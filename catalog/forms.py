"""Forms of the catalog admin."""

from __future__ import annotations

from django import forms

from catalog.importers import QuoteFileRejected
from catalog.importers import quote_file_check
from teams.models import Role
from teams.selectors import User
from teams.selectors import teams_of


def may_import_quotes(user: User) -> bool:
    """Staff import public prices; analysts import their teams' confidential quotes."""
    return user.is_staff or teams_of(user, role=Role.ANALYST).exists()


class QuoteImportForm(forms.Form):
    """Upload of a vendor quote file (columns documented in catalog/importers.py), as the
    confidential quotes of one of the user's teams or, for staff, as public prices."""

    team = forms.ModelChoiceField(
        queryset=None,
        help_text="The team whose confidential prices these are; only its members see them.",
    )
    file = forms.FileField(
        help_text=(
            "CSV or XLSX with a header row: kind, slug or provider/instance_type/region/"
            "pricing_model, amount, currency, as_of, source; optional accelerator, "
            "accelerators_per_instance, amount_high, note."
        )
    )

    def __init__(self, *args, user: User, **kwargs):
        super().__init__(*args, **kwargs)
        team = self.fields["team"]
        team.queryset = teams_of(user, role=Role.ANALYST)
        if user.is_staff:
            team.required = False
            team.empty_label = "— none: public catalog prices —"
            team.help_text += " Leave empty to import public catalog prices."
        elif team.queryset.count() == 1:
            team.initial = team.queryset.get()

    def clean_file(self):
        upload = self.cleaned_data["file"]
        try:
            quote_file_check(file_name=upload.name, size_bytes=upload.size)
        except QuoteFileRejected as exc:
            raise forms.ValidationError([str(error) for error in exc.errors]) from exc
        return upload
