"""Settings modules: base (read from the environment), local, production and test.

The command-line entry points, ``manage.py`` and the Celery worker and beat, default to the
local settings (``make run``); the web server defaults to production (``config/wsgi.py``), so a
server started without ``DJANGO_SETTINGS_MODULE`` never runs with DEBUG. The container image
sets production for every process.
"""

COMMAND_LINE_DEFAULT = "config.settings.local"
