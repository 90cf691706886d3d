"""API tokens for budgeting tools, made and revoked by superusers. The key is shown once, when
the token is made: only its SHA-512 digest is stored (django-rest-knox). Every token expires,
at most API_TOKEN_TTL_DAYS after it was made."""
from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib import messages
from django.contrib.admin import widgets
from django.http import HttpRequest
from django.utils import timezone
from knox.admin import AuthTokenAdmin
from knox.admin import AuthTokenCreateForm
from knox.models import AuthToken
from knox.settings import knox_settings


class ApiTokenCreateForm(AuthTokenCreateForm):
    """The user and the expiry: by default, and at the latest, the configured lifetime from now."""

    expiry = forms.SplitDateTimeField(
        widget=widgets.AdminSplitDateTime,
        help_text="When the token stops working; at most the configured lifetime (API_TOKEN_TTL_DAYS) "
        "from now.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["expiry"].initial = self._latest()

    @staticmethod
    def _latest():
        return timezone.now() + knox_settings.TOKEN_TTL

    def clean_expiry(self):
        expiry = self.cleaned_data["expiry"]
        if expiry <= timezone.now():
            raise forms.ValidationError("must be in the future")
        if expiry > self._latest():
            raise forms.ValidationError(f"at most {knox_settings.TOKEN_TTL.days} days from now "
                                        "(API_TOKEN_TTL_DAYS)")
        return expiry


class ApiTokenAdmin(AuthTokenAdmin):
    """Tokens by user, creation and expiry; made (key shown once) and deleted, never edited."""

    add_form = ApiTokenCreateForm
    list_display = ("user", "token_key_start", "created", "expiry")
    readonly_fields = ("user", "created", "expiry")
    fields = ("user", "created", "expiry")

    @admin.display(description="Key starts with")
    def token_key_start(self, token: AuthToken) -> str:
        return f"{token.token_key[:4]}…"

    def get_fields(self, request: HttpRequest, obj=None):
        return ("user", "expiry") if obj is None else self.fields

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        return () if obj is None else self.readonly_fields

    def save_model(self, request: HttpRequest, obj: AuthToken, form, change: bool) -> None:
        admin.ModelAdmin.save_model(self, request, obj, form, change)
        if not change:
            self.message_user(request, f"API token of {obj.user}, shown this once (only its digest "
                                       f"is kept): {form.token}", messages.WARNING)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_superuser

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_superuser


admin.site.unregister(AuthToken)
admin.site.register(AuthToken, ApiTokenAdmin)
