"""Starts the end-to-end tests' OAuth 2.0 / OpenID Connect provider (django-oauth-toolkit, see
settings.py) on 127.0.0.1. Run through `scripts/oauth-provider serve`, with the Python of the
virtual environment `scripts/setup --test` made:

  serve.py DIRECTORY [--access-token-lifetime 3600] [--device-interval 1]
      [--device-code-lifetime 1800] [--lifetime 1800] [--template PATH]

DIRECTORY (the test's, private) receives the sqlite database and provider.log, where every log
line goes. The environment gives OAUTH_PROVIDER_ADMIN_TOKEN, the token of the test-only
administration (testadmin.py): never argv, which any process can read.

--template names a database migrated before, copied instead of migrating anew (two of the three
seconds of a start); it is written after the first migration when missing.

Binds a free port of 127.0.0.1 itself (no port to guess), creates the database, and prints one
line `http://127.0.0.1:PORT` on stdout once it answers requests, then nothing more there. Exits
after --lifetime seconds, when its parent goes away, or on SIGTERM, SIGINT or SIGHUP.
"""

import argparse
import os
import shutil
import signal
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory")
    parser.add_argument("--access-token-lifetime", type=int, default=3600)
    parser.add_argument("--device-interval", type=int, default=1)
    parser.add_argument("--device-code-lifetime", type=int, default=1800)
    parser.add_argument("--lifetime", type=float, default=1800, help="seconds before exiting by itself")
    parser.add_argument("--template", help="a migrated database to start from (written when missing)")
    args = parser.parse_args()
    if not os.environ.get("OAUTH_PROVIDER_ADMIN_TOKEN"):
        parser.error("OAUTH_PROVIDER_ADMIN_TOKEN is not set")
    parent = os.getppid()
    deadline = time.monotonic() + args.lifetime
    stop = threading.Event()
    # A parent that starts us from a thread with signals blocked hands that mask down: unblock.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        # Event.set() takes a lock the interrupted main thread may hold: set it from another thread.
        signal.signal(number, lambda *_: threading.Thread(target=stop.set, daemon=True).start())

    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler

    # The port first: the issuer, which names it, is a setting.
    server = ThreadedWSGIServer(("127.0.0.1", 0), WSGIRequestHandler, allow_reuse_address=False)
    base = "http://127.0.0.1:%d" % server.server_address[1]
    os.environ.update(
        OAUTH_PROVIDER_DIRECTORY=os.path.abspath(args.directory),
        OAUTH_PROVIDER_ISSUER=base + "/o",
        OAUTH_PROVIDER_ACCESS_TOKEN_LIFETIME=str(args.access_token_lifetime),
        OAUTH_PROVIDER_DEVICE_INTERVAL=str(args.device_interval),
        OAUTH_PROVIDER_DEVICE_CODE_LIFETIME=str(args.device_code_lifetime),
        DJANGO_SETTINGS_MODULE="settings",
    )
    sys.path.insert(0, HERE)
    import django
    from django.conf import settings
    from django.core.management import call_command
    from django.core.wsgi import get_wsgi_application

    django.setup()  # connects to no database yet
    templated = args.template is not None and os.path.exists(args.template)
    if templated:
        shutil.copyfile(args.template, settings.DATABASES["default"]["NAME"])
    call_command("migrate", verbosity=0, interactive=False)  # brings a template up to date
    if args.template is not None and not templated:
        save_template(args.template)
    server.set_app(get_wsgi_application())
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    print(base, flush=True)

    while not stop.wait(max(0.0, min(0.5, deadline - time.monotonic()))):
        if time.monotonic() >= deadline or os.getppid() != parent:
            stop.set()
    stopper = threading.Thread(target=server.shutdown, daemon=True)
    stopper.start()
    stopper.join(2)
    os._exit(0)  # request threads still running must not keep the process alive


def save_template(path):
    """A copy of the freshly migrated database (without the write-ahead log's pages missing from
    a plain copy), put in place whole: providers starting at once each write their own."""
    from django.db import connection

    partial = "%s.%d" % (path, os.getpid())
    with connection.cursor() as cursor:
        cursor.execute("VACUUM INTO %s", [partial])
    os.replace(partial, path)


if __name__ == "__main__":
    main()
