#include "accounts_curl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

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

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *load_error = "libcurl was not loaded";
static char load_error_text[512];

#define LOAD(field, symbol)                                                                    \
  if ((*(void **)&curl.field = dlsym(library, symbol)) == NULL) {                             \
    load_error = "libcurl.so.4 lacks " symbol;                                                \
    return;                                                                                    \
  }

static void load(void) {
  /* RTLD_LOCAL: libcurl's symbols stay out of the way of anything else in the process. */
  void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    snprintf(load_error_text, sizeof load_error_text, "%s (install libcurl4)", dlerror());
    load_error = load_error_text;
    return;
  }
  LOAD(global_init, "curl_global_init")
  LOAD(easy_init, "curl_easy_init")
  LOAD(easy_cleanup, "curl_easy_cleanup")
  LOAD(easy_setopt, "curl_easy_setopt")
  LOAD(easy_perform, "curl_easy_perform")
  LOAD(easy_getinfo, "curl_easy_getinfo")
  LOAD(easy_strerror, "curl_easy_strerror")
  LOAD(slist_append, "curl_slist_append")
  LOAD(slist_free_all, "curl_slist_free_all")
  if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    load_error = "curl_global_init failed";
    return;
  }
  load_error = NULL;
}

/* Thread-safe: the first caller loads libcurl and runs curl_global_init (itself not
 * thread-safe in older libcurl) inside pthread_once; every other caller waits for it, and
 * pthread_once orders those writes before its reads of `curl` and `load_error`, which nothing
 * writes again. Each transfer then has its own easy handle (CURLOPT_NOSIGNAL), which libcurl
 * allows on any number of threads at once. Call this before any other accounts_curl_ function. */
const char *accounts_curl_load(void) {
  pthread_once(&once, load);
  return load_error;
}

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
