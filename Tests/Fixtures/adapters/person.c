/*
 * person.c: an adapter of ABI 1.3 for the host's tests of what 1.3 added.
 *
 *     cc -shared -fPIC -I include -o person.so person.c
 *
 * With the setting grant=device its LOGIN needs a person: it SHOWs a message (with an escape
 * sequence the host must strip) and a link, then polls http://127.0.0.1:9/poll `polls` times
 * (default 2) with delay_ms 1000 before it answers OK (token DEV, refresh token RDEV); polls=0
 * polls until the person's time runs out. show=twice SHOWs twice, delay=huge asks for a pause
 * beyond the host's bound. REFRESH answers the token "T-" + the refresh token given, and the
 * rotated refresh token that with "x" appended. LOGIN without grant=device needs a password
 * and answers token PW.
 */
#include <accounts_adapter.h>

#include <stdlib.h>
#include <string.h>

static const acc_setting settings[] = {
  {ACC_STRING("grant"), ACC_STRING("device or password"), ACC_SETTING_OPTIONAL, ACC_STRING("password")},
  {ACC_STRING("polls"), ACC_STRING("polls before approval"), ACC_SETTING_OPTIONAL, ACC_STRING("2")},
  {ACC_STRING("show"), ACC_STRING("twice: SHOW twice"), ACC_SETTING_OPTIONAL, ACC_STRING("")},
  {ACC_STRING("delay"), ACC_STRING("huge: too long a delay"), ACC_SETTING_OPTIONAL, ACC_STRING("")},
};

typedef struct {
  int operation;
  int device, polls, twice, huge, step;
  char token[256];
  char refresh[256];
} session;

static int equals(acc_string s, const char *text) {
  return s.length == strlen(text) && (s.length == 0 || memcmp(s.bytes, text, s.length) == 0);
}

static const acc_string *setting(const acc_pairs *pairs, const char *name) {
  for (size_t i = 0; i < pairs->count; i++)
    if (equals(pairs->items[i].name, name)) return &pairs->items[i].value;
  return NULL;
}

static uint32_t login_needs(const acc_pairs *settings) {
  const acc_string *grant = setting(settings, "grant");
  return grant && equals(*grant, "device") ? ACC_LOGIN_PERSON : ACC_LOGIN_PASSWORD;
}

static void *session_new(const acc_session_config *config) {
  session *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->operation = config->operation;
  const acc_string *grant = setting(&config->settings, "grant");
  s->device = grant && equals(*grant, "device");
  const acc_string *polls = setting(&config->settings, "polls");
  s->polls = 2;
  if (polls && polls->length > 0 && polls->length < 8) {
    char text[8] = {0};
    memcpy(text, polls->bytes, polls->length);
    s->polls = atoi(text);
  }
  const acc_string *show = setting(&config->settings, "show");
  s->twice = show && equals(*show, "twice");
  const acc_string *delay = setting(&config->settings, "delay");
  s->huge = delay && equals(*delay, "huge");
  if (config->operation == ACC_OP_REFRESH && config->size >= sizeof *config &&
      config->refresh_token.length < 200) {
    memcpy(s->token, "T-", 2);
    memcpy(s->token + 2, config->refresh_token.bytes, config->refresh_token.length);
    memcpy(s->refresh, config->refresh_token.bytes, config->refresh_token.length);
    s->refresh[config->refresh_token.length] = 'x';
  }
  return s;
}

static int32_t step(void *opaque, const acc_response *response, acc_step_output *out) {
  session *s = opaque;
  (void)response;
  if (s->operation == ACC_OP_REFRESH) {
    out->token = (acc_string){s->token, strlen(s->token)};
    out->refresh_token = (acc_string){s->refresh, strlen(s->refresh)};
    out->expires_in = 60;
    return ACC_STEP_OK;
  }
  if (s->operation != ACC_OP_LOGIN) return ACC_STEP_OK;
  if (!s->device) {
    out->token = (acc_string)ACC_STRING("PW");
    return ACC_STEP_OK;
  }
  int step = s->step++;
  if (step == 0 || (s->twice && step == 1)) {
    out->message = (acc_string)ACC_STRING("enter the code \x1b[31mABCD-EFGH");
    out->link = (acc_string)ACC_STRING("https://id.example/device");
    out->expires_in = 3;
    return ACC_STEP_SHOW;
  }
  if (s->polls == 0 || step <= s->polls) {
    out->request.method = (acc_string)ACC_STRING("POST");
    out->request.url = (acc_string)ACC_STRING("http://127.0.0.1:9/poll");
    out->delay_ms = s->huge ? 60001 : 1000;
    return ACC_STEP_SEND;
  }
  out->token = (acc_string)ACC_STRING("DEV");
  out->refresh_token = (acc_string)ACC_STRING("RDEV");
  out->expires_in = 60;
  return ACC_STEP_OK;
}

static void session_free(void *opaque) { free(opaque); }

static const acc_adapter descriptor = {
  .abi_version = ACC_ADAPTER_ABI_VERSION,
  .name = ACC_STRING("person"),
  .version = ACC_STRING("1.0.0"),
  .description = ACC_STRING("ABI 1.3 test adapter"),
  .settings = settings,
  .settings_count = sizeof settings / sizeof settings[0],
  .session_new = session_new,
  .step = step,
  .session_free = session_free,
  .flags = 0,
  .login_needs = login_needs,
};

const acc_adapter *accounts_adapter_v1(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &descriptor;
}
