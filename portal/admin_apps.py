"""django.contrib.admin's app config, pointing at the admin site that lets team members in."""
from django.contrib.admin.apps import AdminConfig


class TeamAdminConfig(AdminConfig):
    """django.contrib.admin with portal.admin_site.TeamAdminSite as the default site."""

    default_site = "portal.admin_site.TeamAdminSite"
