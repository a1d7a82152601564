"""The provider's URLs: django-oauth-toolkit under /o (so the issuer is http://127.0.0.1:PORT/o),
RFC 8414's metadata also where a strict client looks for it (/.well-known/oauth-authorization-server/o),
and the test-only administration under /test-admin/."""

import os

from django.urls import include, path
from oauth2_provider import urls as provider_urls
from oauth2_provider import views as provider_views
from oauthlib.oauth2 import DeviceApplicationServer

import testadmin


class DeviceServer(DeviceApplicationServer):
    """oauthlib's device authorization endpoint with the device code's lifetime the test chose
    (OAUTH_PROVIDER_DEVICE_CODE_LIFETIME): DOT passes no `expires_in`, so it is always
    oauthlib's 1800 s otherwise."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._expires_in = int(os.environ["OAUTH_PROVIDER_DEVICE_CODE_LIFETIME"])


class DeviceAuthorizationView(provider_views.DeviceAuthorizationView):
    server_class = DeviceServer


urlpatterns = [
    # Before DOT's own route of the same path, which it replaces.
    path("o/device-authorization/", DeviceAuthorizationView.as_view()),
    path("o/", include(provider_urls)),
    path(
        ".well-known/oauth-authorization-server/o",
        provider_views.OAuthServerMetadataView.as_view(),
    ),
    path("test-admin/", include(testadmin.urlpatterns)),
]
