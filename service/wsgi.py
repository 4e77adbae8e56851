"""WSGI entry point for gunicorn: ``gunicorn service.wsgi:app``.

gunicorn loads this module once in its master process (``preload_app``), before it prints "Listening"
and forks its workers: the app is warmed here, so every worker starts with the proven trees loaded and
the kernels in memory, and its first request is answered at once.
"""

from service.app import create_app, warm

app = create_app(warm_in_background=False)
warm(app, every_tree=True)
