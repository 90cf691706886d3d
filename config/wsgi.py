"""WSGI entry point (gunicorn config.wsgi): production settings unless told otherwise.

Never the local ones: a server started without DJANGO_SETTINGS_MODULE must not run with
DEBUG and a development secret key; production settings refuse to start without secrets.
"""
import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
application = get_wsgi_application()
# Django imports the URL configuration, and with it every view, the engine and its compiled
# kernels, on a worker's first request: on a busy 2-core machine that request outlived
# gunicorn's 30 s worker timeout (the production probe's only timeout). Loaded here, at boot.
import_module(settings.ROOT_URLCONF)
