"""Django settings of the end-to-end tests' OAuth 2.0 / OpenID Connect provider.

django-oauth-toolkit serves every grant the `oauth2` adapter speaks (password, client
credentials, the device authorization grant; refresh tokens, rotated on every use), RFC 7009
revocation, RFC 7662 introspection, OIDC discovery and userinfo. `serve.py` sets the
environment this reads before Django starts:

  OAUTH_PROVIDER_DIRECTORY              the test's temporary directory: the sqlite database and
                                        provider.log
  OAUTH_PROVIDER_ISSUER                 http://127.0.0.1:PORT/o (PORT: the socket serve.py bound)
  OAUTH_PROVIDER_ACCESS_TOKEN_LIFETIME  seconds
  OAUTH_PROVIDER_DEVICE_INTERVAL        seconds a device client waits between polls
  OAUTH_PROVIDER_DEVICE_CODE_LIFETIME   seconds a device code lives (urls.py)
  OAUTH_PROVIDER_ADMIN_TOKEN            what the test-only administration (testadmin.py) asks for

Nothing here is a real secret: the Django secret key and the OIDC signing key are made anew at
every start.
"""

import os
import secrets

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

DIRECTORY = os.environ["OAUTH_PROVIDER_DIRECTORY"]
ISSUER = os.environ["OAUTH_PROVIDER_ISSUER"]
ADMIN_TOKEN = os.environ["OAUTH_PROVIDER_ADMIN_TOKEN"]

SECRET_KEY = secrets.token_urlsafe(48)
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
USE_TZ = True
TIME_ZONE = "UTC"
ROOT_URLCONF = "urls"

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}]

# Threads of one server share the file: a write waits for another (timeout) instead of failing,
# and a transaction takes its write lock when it begins, so two never deadlock upgrading.
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.path.join(DIRECTORY, "provider.sqlite3"),
        "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"},
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Django's default hasher costs about half a second of CPU per password and per client secret
# (DOT hashes client secrets too): every token request would pay it. Django's documentation
# recommends this one for tests.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

OAUTH2_PROVIDER = {
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ["OAUTH_PROVIDER_ACCESS_TOKEN_LIFETIME"]),
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "SCOPES": {
        "openid": "OpenID Connect",
        "profile": "The user's profile",
        "email": "The user's e-mail address",
        "read": "Reading",
        "write": "Writing",
        "introspection": "Introspecting other clients' tokens",
    },
    # A token asked for without a scope can call userinfo (which needs openid), which then names
    # the user (profile).
    "DEFAULT_SCOPES": ["openid", "profile", "read", "write"],
    "OAUTH2_VALIDATOR_CLASS": "validator.Validator",
    "OIDC_ENABLED": True,
    "OIDC_ISS_ENDPOINT": ISSUER,
    "OIDC_RSA_PRIVATE_KEY": rsa.generate_private_key(public_exponent=65537, key_size=2048)
    .private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    .decode(),
    "PKCE_REQUIRED": False,
    "OAUTH_DEVICE_VERIFICATION_URI": ISSUER + "/device/",
    "OAUTH_DEVICE_VERIFICATION_URI_COMPLETE": ISSUER + "/device/?user_code={user_code}",
    "DEVICE_FLOW_INTERVAL": int(os.environ["OAUTH_PROVIDER_DEVICE_INTERVAL"]),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {
        "file": {
            "class": "logging.FileHandler",
            "filename": os.path.join(DIRECTORY, "provider.log"),
            "formatter": "plain",
        }
    },
    "root": {"handlers": ["file"], "level": "INFO"},
    # Django's own configuration sends each request's line to the console: here, to the file.
    "loggers": {"django.server": {"handlers": ["file"], "level": "INFO", "propagate": False}},
}
