"""Test-only administration of the provider, mounted under /test-admin/ in this test project only
(never part of django-oauth-toolkit): what an end-to-end test does at the server between the
steps of `accounts`. One HTTP request per action, so a test does not pay Django's start-up
(about a second) for each, as a management command would.

Every request carries the header X-Test-Admin-Token with the token the test gave the server
(OAUTH_PROVIDER_ADMIN_TOKEN); bodies and answers are JSON; a refusal is a 4xx status with
{"error": "..."}.

  POST users                                   {"username", "password"}: a new user
  POST users/NAME/password                     {"password"}: the user's password changes
  GET  users/NAME/tokens                       the user's live tokens (below)
  POST users/NAME/revoke-tokens                revokes every token of the user
  GET  applications/CLIENT_ID/tokens           the client's live tokens (client credentials'
                                               tokens have no user)
  POST applications/CLIENT_ID/revoke-tokens    revokes every token issued to the client
  POST applications                            {"client_id", "client_type": "confidential" or
                                               "public", "grant_type": "password",
                                               "client_credentials" or "device_code",
                                               ["client_secret"]}: a new client; answers
                                               {"client_id", "client_secret"} (a confidential
                                               client without one gets a new secret)
  POST device/USER_CODE/approve                {"username"}: that user, logged in, enters the
  POST device/USER_CODE/deny                   code on DOT's device page and accepts or denies
                                               on its confirmation page
  POST device/USER_CODE/expire                 the device code's lifetime ends now

Live tokens: {"access_tokens": [{"token", "client_id", "scope", "expires"}], "refresh_tokens":
[{"token", "client_id", "access_token"}]}: access tokens not yet expired (revoking one deletes
it), refresh tokens not revoked; `expires` in seconds since the epoch, `access_token` the value
of the refresh token's access token or null.
"""

import hmac
import json
from functools import wraps

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError
from django.http import JsonResponse
from django.test import Client
from django.urls import path, reverse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider.generators import generate_client_secret
from oauth2_provider.models import get_access_token_model, get_application_model, get_device_grant_model
from oauth2_provider.models import get_refresh_token_model, revoke_access_token
from oauth2_provider.views.device import DeviceGrantForm

GRANTS = {
    "password": "password",
    "client_credentials": "client-credentials",
    "device_code": "urn:ietf:params:oauth:grant-type:device_code",
}


class Refused(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def admin(method):
    """Only METHOD, only with the test's admin token; the JSON body as `body`."""

    def decorate(view):
        @csrf_exempt
        @wraps(view)
        def checked(request, **kwargs):
            given = request.headers.get("X-Test-Admin-Token", "")
            if not hmac.compare_digest(given.encode(), settings.ADMIN_TOKEN.encode()):
                return JsonResponse({"error": "wrong or missing X-Test-Admin-Token"}, status=403)
            if request.method != method:
                return JsonResponse({"error": "use %s" % method}, status=405)
            try:
                body = json.loads(request.body or b"{}")
                return JsonResponse(view(body, **kwargs))
            except Refused as refusal:
                return JsonResponse({"error": str(refusal)}, status=refusal.status)
            except (ValueError, KeyError) as error:
                return JsonResponse({"error": "bad request: %r" % error}, status=400)

        return checked

    return decorate


def user_named(name):
    try:
        return get_user_model().objects.get(username=name)
    except get_user_model().DoesNotExist:
        raise Refused(404, "no user %s" % name)


def application_with(client_id):
    try:
        return get_application_model().objects.get(client_id=client_id)
    except get_application_model().DoesNotExist:
        raise Refused(404, "no application %s" % client_id)


@admin("POST")
def create_user(body):
    try:
        get_user_model().objects.create_user(username=body["username"], password=body["password"])
    except IntegrityError:
        raise Refused(409, "user %s exists" % body["username"])
    return {"username": body["username"]}


@admin("POST")
def change_password(body, name):
    user = user_named(name)
    user.set_password(body["password"])
    user.save(update_fields=["password"])
    return {"username": name}


def live_tokens(owner):
    now = timezone.now()
    access = get_access_token_model().objects.filter(expires__gt=now, **owner).select_related("application")
    refresh = (
        get_refresh_token_model()
        .objects.filter(revoked__isnull=True, **owner)
        .select_related("application", "access_token")
    )
    return {
        "access_tokens": [
            {
                "token": token.token,
                "client_id": token.application.client_id if token.application else None,
                "scope": token.scope,
                "expires": int(token.expires.timestamp()),
            }
            for token in access
        ],
        "refresh_tokens": [
            {
                "token": token.token,
                "client_id": token.application.client_id,
                "access_token": token.access_token.token if token.access_token else None,
            }
            for token in refresh
        ],
    }


def revoke_tokens(owner):
    """Revokes each token as DOT's revocation endpoint does: a refresh token is marked revoked
    and its access token deleted; an access token is deleted, with its refresh token revoked."""
    refresh = list(get_refresh_token_model().objects.filter(revoked__isnull=True, **owner))
    for token in refresh:
        token.revoke()
    access = list(get_access_token_model().objects.filter(**owner))
    for token in access:
        revoke_access_token(token)
    return {"refresh_tokens": len(refresh), "access_tokens": len(access)}


def token_views(owner):
    """The views listing and revoking the tokens of what `owner(key)` finds: {field: object}."""

    @admin("GET")
    def listing(body, key):
        return live_tokens(owner(key))

    @admin("POST")
    def revoking(body, key):
        return revoke_tokens(owner(key))

    return listing, revoking


user_tokens, revoke_user_tokens = token_views(lambda name: {"user": user_named(name)})
application_tokens, revoke_application_tokens = token_views(
    lambda client_id: {"application": application_with(client_id)}
)


@admin("POST")
def create_application(body):
    model = get_application_model()
    client_type = body["client_type"]
    if client_type not in (model.CLIENT_CONFIDENTIAL, model.CLIENT_PUBLIC):
        raise Refused(400, "client_type is confidential or public")
    if body["grant_type"] not in GRANTS:
        raise Refused(400, "grant_type is one of %s" % ", ".join(GRANTS))
    secret = body.get("client_secret") or (generate_client_secret() if client_type == "confidential" else "")
    if model.objects.filter(client_id=body["client_id"]).exists():
        raise Refused(409, "application %s exists" % body["client_id"])
    model.objects.create(
        name=body["client_id"],
        client_id=body["client_id"],
        client_secret=secret,
        client_type=client_type,
        authorization_grant_type=GRANTS[body["grant_type"]],
        algorithm=model.RS256_ALGORITHM,
    )
    return {"client_id": body["client_id"], "client_secret": secret or None}


def decide(user_code, username, action):
    """What the person does in a browser: logged in as USERNAME, enters the code on DOT's device
    page, then accepts or denies on the confirmation page it leads to."""
    browser = Client(SERVER_NAME="127.0.0.1")
    browser.force_login(user_named(username))
    entered = browser.post(reverse("oauth2_provider:device"), {"user_code": user_code})
    if entered.status_code != 302:
        form = DeviceGrantForm({"user_code": user_code})
        reason = "; ".join(form.errors.get("user_code", [])) if not form.is_valid() else "status %d" % entered.status_code
        raise Refused(409, "the device page refused user code %s: %s" % (user_code, reason))
    decided = browser.post(entered.url, {"action": action})
    if decided.status_code != 302:
        raise Refused(409, "the confirmation page answered %d" % decided.status_code)
    return {"user_code": user_code, "status": get_device_grant_model().objects.get(user_code=user_code).status}


@admin("POST")
def approve_device(body, user_code):
    return decide(user_code, body["username"], "accept")


@admin("POST")
def deny_device(body, user_code):
    return decide(user_code, body["username"], "deny")


@admin("POST")
def expire_device(body, user_code):
    model = get_device_grant_model()
    try:
        grant = model.objects.get(user_code=user_code)
    except model.DoesNotExist:
        raise Refused(404, "no device code with user code %s" % user_code)
    grant.expires = timezone.now()
    grant.save(update_fields=["expires"])
    grant.is_expired()  # what DOT's device page does with a code past its time: marks it expired
    return {"user_code": user_code, "status": grant.status}


urlpatterns = [
    path("users", create_user),
    path("users/<str:name>/password", change_password),
    path("users/<str:key>/tokens", user_tokens),
    path("users/<str:key>/revoke-tokens", revoke_user_tokens),
    path("applications", create_application),
    path("applications/<str:key>/tokens", application_tokens),
    path("applications/<str:key>/revoke-tokens", revoke_application_tokens),
    path("device/<str:user_code>/approve", approve_device),
    path("device/<str:user_code>/deny", deny_device),
    path("device/<str:user_code>/expire", expire_device),
]
