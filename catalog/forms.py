"""Forms of the catalog admin."""

from __future__ import annotations

from pathlib import PurePath

from django import forms


class QuoteImportForm(forms.Form):
    """Upload of a vendor quote file (columns documented in catalog/importers.py)."""

    file = forms.FileField(
        help_text=(
            "CSV or XLSX with a header row: kind, slug or provider/instance_type/region/"
            "pricing_model, amount, currency, as_of, source; optional accelerator, "
            "accelerators_per_instance, amount_high, note."
        )
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if PurePath(upload.name).suffix.lower() not in (".csv", ".xlsx"):
            raise forms.ValidationError("Upload a .csv or .xlsx file.")
        return upload
