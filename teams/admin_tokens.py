"""API tokens for budgeting tools, made by staff for a user picked by name (superusers for anyone,
other staff for users who are not staff), and revoked. Users make their own on "My API tokens"
(teams/admin_my_tokens.py). The key is shown once, when the token is made: only its SHA-512
digest is stored (django-rest-knox). Every token expires, at most API_TOKEN_TTL_DAYS after it
was made."""
from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib import messages
from django.contrib.admin import widgets
from django.http import HttpRequest
from knox.admin import AuthTokenAdmin
from knox.admin import AuthTokenCreateForm
from knox.models import AuthToken

from costmodel.vocabulary import MISSING
from teams.models import ApiTokenName
from teams.tokens import expiry_check
from teams.tokens import latest_expiry


class ApiTokenCreateForm(AuthTokenCreateForm):
    """The user, a name and the expiry: by default, and at the latest, the configured lifetime
    from now."""

    name = forms.CharField(max_length=100, help_text="What uses it, e.g. \"budget sync\".")

    expiry = forms.SplitDateTimeField(
        widget=widgets.AdminSplitDateTime,
        help_text="When the token stops working; at most the configured lifetime (API_TOKEN_TTL_DAYS) "
        "from now.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["expiry"].initial = latest_expiry()

    def clean_expiry(self):
        return expiry_check(self.cleaned_data["expiry"])

    def clean_user(self):
        user = self.cleaned_data["user"]
        maker = getattr(self, "maker", None)
        other_staff = user != maker and (user.is_staff or user.is_superuser)
        if maker is not None and not maker.is_superuser and other_staff:
            raise forms.ValidationError("only a superuser makes tokens for other staff")
        return user


class ApiTokenAdmin(AuthTokenAdmin):
    """Tokens by user, creation and expiry; made (key shown once) and deleted, never edited."""

    add_form = ApiTokenCreateForm
    list_display = ("user", "token_name", "token_key_start", "created", "expiry")
    list_select_related = ("user", "label")
    raw_id_fields = ()
    autocomplete_fields = ("user",)  # picked by name, not typed as a numeric id
    readonly_fields = ("user", "created", "expiry")
    fields = ("user", "created", "expiry")

    @admin.display(description="Key starts with")
    def token_key_start(self, token: AuthToken) -> str:
        return f"{token.token_key[:4]}…"

    @admin.display(description="Name")
    def token_name(self, token: AuthToken) -> str:
        label = getattr(token, "label", None)
        return label.name if label is not None else MISSING

    def get_fields(self, request: HttpRequest, obj=None):
        return ("user", "name", "expiry") if obj is None else self.fields

    def get_form(self, request: HttpRequest, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        form.maker = request.user
        return form

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        return () if obj is None else self.readonly_fields

    def save_model(self, request: HttpRequest, obj: AuthToken, form, change: bool) -> None:
        admin.ModelAdmin.save_model(self, request, obj, form, change)
        if not change:
            ApiTokenName.objects.create(token=obj, name=form.cleaned_data["name"])
            self.message_user(request, f"API token of {obj.user}, shown this once (only its digest "
                                       f"is kept): {form.token}", messages.WARNING)

    def get_queryset(self, request: HttpRequest):
        tokens = super().get_queryset(request)
        if request.user.is_superuser:
            return tokens
        users = tokens.filter(user__is_staff=False, user__is_superuser=False)
        return users | tokens.filter(user=request.user)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_staff

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_staff

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.is_staff

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_staff


admin.site.unregister(AuthToken)
admin.site.register(AuthToken, ApiTokenAdmin)
