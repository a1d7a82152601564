/*
 * example.c: a complete accounts adapter in C, built from accounts_adapter.h alone.
 *
 *     cc -shared -fPIC -I PATH/TO/include -o example.so example.c
 *
 * It logs in with a form POST of username and password to BASE_URL/login and reads userId,
 * token and expiresIn from the JSON reply (a deliberately tiny scanner: a real adapter should
 * use a JSON parser). CHECK and LOGOUT trust the local state; CALL is not supported.
 * With otp_field set (ABI 1.1), the login also sends the one-time code the host hands over.
 * It builds against a 1.0 header too (then without otp_field), as the tests check.
 * The tests compile it and log in against the project's test backend.
 */
#include <accounts_adapter.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const acc_setting settings[] = {
    {ACC_STRING("base_url"), ACC_STRING("Base URL, e.g. https://id.example.com/plain/plain"), 0,
     ACC_STRING("")},
    {ACC_STRING("login_path"), ACC_STRING("Path of the login endpoint"), ACC_SETTING_OPTIONAL,
     ACC_STRING("login")},
#ifdef ACC_SETTING_ONE_TIME_CODE
    /* When a backend sets it, the host hands LOGIN the current one-time code. */
    {ACC_STRING("otp_field"), ACC_STRING("Form field for the one-time code, e.g. otp"),
     ACC_SETTING_OPTIONAL | ACC_SETTING_ONE_TIME_CODE, ACC_STRING("")},
#endif
};

typedef struct session {
  int operation;
  char *url;       /* base_url + "/" + login_path */
  char *body;      /* the form, holds the password: wiped on free */
  size_t body_length;
  char *token;
  char user_id[24];
  acc_pair values[1];
  acc_pair headers[1];
  int sent;
} session;

static char *copy(acc_string s) {
  char *out = malloc(s.length + 1);
  if (out == NULL) return NULL;
  if (s.length > 0) memcpy(out, s.bytes, s.length);
  out[s.length] = '\0';
  return out;
}

static acc_string text(const char *s) {
  acc_string out = {s, s ? strlen(s) : 0};
  return out;
}

static acc_string setting(const acc_session_config *config, const char *name, const char *fallback) {
  for (size_t i = 0; i < config->settings.count; i++) {
    acc_pair pair = config->settings.items[i];
    if (pair.name.length == strlen(name) && memcmp(pair.name.bytes, name, pair.name.length) == 0)
      return pair.value;
  }
  return text(fallback);
}

/* Appends name=value, percent-encoding the value; returns the new length. */
static size_t append_field(char *out, size_t at, const char *name, acc_string value) {
  static const char hex[] = "0123456789ABCDEF";
  if (at > 0) out[at++] = '&';
  for (const char *p = name; *p; p++) out[at++] = *p;
  out[at++] = '=';
  for (size_t i = 0; i < value.length; i++) {
    unsigned char c = (unsigned char)value.bytes[i];
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out[at++] = (char)c;
    } else {
      out[at++] = '%';
      out[at++] = hex[c >> 4];
      out[at++] = hex[c & 15];
    }
  }
  return at;
}

static void *session_new(const acc_session_config *config) {
  session *s = calloc(1, sizeof *s);
  if (s == NULL) return NULL;
  s->operation = config->operation;
  acc_string base = setting(config, "base_url", "");
  acc_string path = setting(config, "login_path", "login");
  s->url = malloc(base.length + path.length + 2);
  if (s->url == NULL) { free(s); return NULL; }
  memcpy(s->url, base.bytes, base.length);
  s->url[base.length] = '/';
  memcpy(s->url + base.length + 1, path.bytes, path.length);
  s->url[base.length + 1 + path.length] = '\0';
  if (config->operation == ACC_OP_LOGIN) {
    acc_string code = {NULL, 0};
    char field[64] = "";
#ifdef ACC_SETTING_ONE_TIME_CODE
    /* one_time_code came with 1.1: read it only when the host's struct is that long. */
    acc_string otp_field = setting(config, "otp_field", "");
    if (otp_field.length > 0 && otp_field.length < sizeof field &&
        config->size >= offsetof(acc_session_config, one_time_code) + sizeof(acc_string)) {
      memcpy(field, otp_field.bytes, otp_field.length);
      field[otp_field.length] = '\0';
      code = config->one_time_code;
    }
#endif
    s->body = malloc(48 + sizeof field + 3 * (config->user.length + config->password.length + code.length));
    if (s->body == NULL) { free(s->url); free(s); return NULL; }
    s->body_length = append_field(s->body, 0, "username", config->user);
    s->body_length = append_field(s->body, s->body_length, "password", config->password);
    if (field[0] != '\0') s->body_length = append_field(s->body, s->body_length, field, code);
  }
  return s;
}

/* The integer after "name": in body, or -1. */
static long long number_field(const char *body, const char *name) {
  char key[64];
  snprintf(key, sizeof key, "\"%s\":", name);
  const char *at = strstr(body, key);
  return at ? strtoll(at + strlen(key), NULL, 10) : -1;
}

/* A copy of the string after "name":" in body, or NULL. */
static char *string_field(const char *body, const char *name) {
  char key[64];
  snprintf(key, sizeof key, "\"%s\":", name);
  const char *at = strstr(body, key);
  if (at == NULL) return NULL;
  at += strlen(key);
  while (*at == ' ') at++;
  if (*at++ != '"') return NULL;
  const char *end = strchr(at, '"');
  if (end == NULL) return NULL;
  acc_string value = {at, (size_t)(end - at)};
  return copy(value);
}

static int32_t step(void *opaque, const acc_response *response, acc_step_output *out) {
  session *s = opaque;
  switch (s->operation) {
  case ACC_OP_VALIDATE:
    if (strncmp(s->url, "http://", 7) != 0 && strncmp(s->url, "https://", 8) != 0) {
      out->message = text("base_url must start with http:// or https://");
      return ACC_STEP_ERROR;
    }
    return ACC_STEP_OK;
  case ACC_OP_CHECK:
  case ACC_OP_LOGOUT:
    return ACC_STEP_OK;
  case ACC_OP_LOGIN:
    break;
  default:
    out->message = text("the example adapter cannot call APIs");
    return ACC_STEP_ERROR;
  }
  if (response == NULL) {
    s->headers[0].name = text("Content-Type");
    s->headers[0].value = text("application/x-www-form-urlencoded");
    out->request.method = text("POST");
    out->request.url = text(s->url);
    out->request.headers.items = s->headers;
    out->request.headers.count = 1;
    out->request.body.bytes = s->body;
    out->request.body.length = s->body_length;
    return ACC_STEP_SEND;
  }
  char *body = copy(response->body);
  if (body == NULL) return ACC_STEP_ERROR;
  long long user_id = number_field(body, "userId");
  if (response->status != 200 || user_id <= 0) {
    free(body);
    out->message = text("the backend rejected the user name or password");
    return ACC_STEP_WRONG_PASSWORD;
  }
  s->token = string_field(body, "token");
  long long expires = number_field(body, "expiresIn");
  free(body);
  if (s->token == NULL) {
    out->message = text("the reply has no token");
    return ACC_STEP_ERROR;
  }
  snprintf(s->user_id, sizeof s->user_id, "%lld", user_id);
  s->values[0].name = text("userId");
  s->values[0].value = text(s->user_id);
  out->token = text(s->token);
  out->expires_in = expires > 0 ? expires : 0;
  out->session_values.items = s->values;
  out->session_values.count = 1;
  return ACC_STEP_OK;
}

static void session_free(void *opaque) {
  session *s = opaque;
  if (s->body) { memset(s->body, 0, s->body_length); free(s->body); }
  if (s->token) { memset(s->token, 0, strlen(s->token)); free(s->token); }
  free(s->url);
  free(s);
}

static const acc_adapter descriptor = {
    ACC_ADAPTER_ABI_VERSION,
    ACC_STRING("example"),
    ACC_STRING("1.0.0"),
    ACC_STRING("form login example written in C"),
    settings,
    sizeof settings / sizeof settings[0],
    session_new,
    step,
    session_free,
#if ACC_ADAPTER_ABI_MINOR >= 2
    /* Its CHECK never asks the backend (see step): accounts proves a session by its expiry
     * alone, without loading this library. */
    ACC_ADAPTER_CHECK_DECLARED,
#endif
};

const acc_adapter *accounts_adapter_v1(uint32_t host_abi_version) {
  if (host_abi_version >> 16 != ACC_ADAPTER_ABI_MAJOR) return NULL;
  return &descriptor;
}
