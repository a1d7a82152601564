#include "accounts_curl.h"

#include <accounts_lazy_library.h>

static struct {
  CURLcode (*global_init)(long flags);
  CURL *(*easy_init)(void);
  void (*easy_cleanup)(CURL *handle);
  CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
  CURLcode (*easy_perform)(CURL *handle);
  CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
  const char *(*easy_strerror)(CURLcode code);
  struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
  void (*slist_free_all)(struct curl_slist *list);
} curl;

#define SYMBOL(field) {"curl_" #field, (void **)&curl.field}

static const struct accounts_lazy_symbol symbols[] = {
    SYMBOL(global_init),   SYMBOL(easy_init),    SYMBOL(easy_cleanup),   SYMBOL(easy_setopt),    SYMBOL(easy_perform),
    SYMBOL(easy_getinfo),  SYMBOL(easy_strerror), SYMBOL(slist_append),  SYMBOL(slist_free_all), {NULL, NULL},
};

/* curl_global_init is itself not thread-safe in older libcurl: it runs once, inside the
 * loader's lock. Each transfer then has its own easy handle (CURLOPT_NOSIGNAL), which libcurl
 * allows on any number of threads at once. */
static const char *prepare(void) {
  return curl.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? NULL : "curl_global_init failed";
}

static struct accounts_lazy_library library = ACCOUNTS_LAZY_LIBRARY("libcurl.so.4", "libcurl4", symbols, prepare);

/* Call this before any other accounts_curl_ function. */
const char *accounts_curl_load(void) { return accounts_lazy_load(&library); }

void accounts_curl_load_in_background(void) { accounts_lazy_load_in_background(&library); }

CURL *accounts_curl_easy_init(void) { return curl.easy_init(); }

void accounts_curl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }

CURLcode accounts_curl_easy_perform(CURL *handle) { return curl.easy_perform(handle); }

const char *accounts_curl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }

struct curl_slist *accounts_curl_slist_append(struct curl_slist *list, const char *text) {
  return curl.slist_append(list, text);
}

void accounts_curl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLcode accounts_curl_set_long(CURL *handle, CURLoption option, long value) {
  return curl.easy_setopt(handle, option, value);
}

CURLcode accounts_curl_set_string(CURL *handle, CURLoption option, const char *value) {
  return curl.easy_setopt(handle, option, value);
}

CURLcode accounts_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
  return curl.easy_setopt(handle, option, value);
}

CURLcode accounts_curl_set_size(CURL *handle, CURLoption option, curl_off_t value) {
  return curl.easy_setopt(handle, option, value);
}

CURLcode accounts_curl_set_data_callback(CURL *handle, CURLoption option,
                                         accounts_curl_data_callback callback) {
  return curl.easy_setopt(handle, option, callback);
}

CURLcode accounts_curl_response_code(CURL *handle, long *code) {
  return curl.easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
