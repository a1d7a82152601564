"""django-oauth-toolkit's request validator, with the user's name as OpenID Connect's
preferred_username (scope profile): DOT's own gives userinfo only `sub`, the user's database id."""

from oauth2_provider.oauth2_validators import OAuth2Validator


class Validator(OAuth2Validator):
    def get_additional_claims(self, request):
        return {"preferred_username": request.user.get_username()} if request.user else {}
