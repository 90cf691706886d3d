""""My API tokens": every admin user makes, names and revokes their own tokens on one page."""
from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.admin import widgets
from django.http import HttpRequest
from django.http import HttpResponse
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from teams.tokens import api_token_create
from teams.tokens import api_token_revoke
from teams.tokens import expiry_check
from teams.tokens import latest_expiry
from teams.tokens import tokens_of


class OwnTokenForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="What uses it, e.g. \"budget sync\".")
    expiry = forms.SplitDateTimeField(
        widget=widgets.AdminSplitDateTime, label="Expires",
        help_text="When the token stops working; at most the configured lifetime (API_TOKEN_TTL_DAYS) "
                  "from now.")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["expiry"].initial = latest_expiry().replace(second=0, microsecond=0)

    def clean_expiry(self):
        return expiry_check(self.cleaned_data["expiry"])


def my_tokens_view(request: HttpRequest, admin_site) -> HttpResponse:
    """List the user's tokens; POST ``create`` makes one (its key shown once), ``revoke`` deletes one."""
    form = OwnTokenForm(request.POST if "create" in request.POST else None)
    key = None
    if request.method == "POST" and "revoke" in request.POST:
        if api_token_revoke(user=request.user, digest=request.POST["revoke"]):
            messages.success(request, "The token is revoked: calls with it now answer 401.")
        return HttpResponseRedirect(reverse("admin:my_api_tokens"))
    if request.method == "POST" and form.is_valid():
        token, key = api_token_create(user=request.user, name=form.cleaned_data["name"],
                                      expiry=form.cleaned_data["expiry"])
        form = OwnTokenForm()
    context = {**admin_site.each_context(request), "title": "My API tokens", "form": form, "key": key,
               "tokens": tokens_of(request.user), "api_root": request.build_absolute_uri("/api/v1/")}
    return TemplateResponse(request, "admin/my_api_tokens.html", context)
