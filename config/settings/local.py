"""Development settings: safe local defaults, SQLite and the filesystem broker unless overridden."""
import os

os.environ.setdefault("DJANGO_SECRET_KEY", "local-development-only-not-a-secret")
os.environ.setdefault("DJANGO_DEBUG", "true")
os.environ.setdefault("DJANGO_LOG_FORMAT", "console")

from .base import *  # noqa: E402,F403

# Serve static files from the apps directly; no collectstatic needed outside production.
WHITENOISE_AUTOREFRESH = True
