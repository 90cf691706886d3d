"""WSGI entry point (gunicorn config.wsgi): production settings unless told otherwise.

Never the local ones: a server started without DJANGO_SETTINGS_MODULE must not run with
DEBUG and a development secret key; production settings refuse to start without secrets.
"""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
application = get_wsgi_application()
