/*
 * libcurl for the adapters' HTTP, loaded with dlopen on the first request: most commands that
 * load the adapter host (`accounts adapters`, `backend add`) never send one, and loading
 * libcurl and its TLS stack costs about 10 ms. The header is only for types and constants.
 *
 * Also the typed entry points for the parts of libcurl that Swift cannot call:
 * curl_easy_setopt and curl_easy_getinfo are variadic. One function per argument type.
 */
#ifndef ACCOUNTS_CURL_H
#define ACCOUNTS_CURL_H

#include <curl/curl.h>

/** Loads libcurl.so.4 and runs curl_global_init, once per process. NULL when ready, else why
 *  not (a static string). Call it before any other function here. */
const char *accounts_curl_load(void);

/** Starts accounts_curl_load on a thread of its own; the next accounts_curl_load waits for it. */
void accounts_curl_load_in_background(void);

CURL *accounts_curl_easy_init(void);
void accounts_curl_easy_cleanup(CURL *handle);
CURLcode accounts_curl_easy_perform(CURL *handle);
const char *accounts_curl_easy_strerror(CURLcode code);
struct curl_slist *accounts_curl_slist_append(struct curl_slist *list, const char *text);
void accounts_curl_slist_free_all(struct curl_slist *list);

/** A CURLOPT_WRITEFUNCTION / CURLOPT_HEADERFUNCTION callback. */
typedef size_t (*accounts_curl_data_callback)(char *data, size_t size, size_t count, void *context);

CURLcode accounts_curl_set_long(CURL *handle, CURLoption option, long value);
CURLcode accounts_curl_set_string(CURL *handle, CURLoption option, const char *value);
CURLcode accounts_curl_set_pointer(CURL *handle, CURLoption option, void *value);
CURLcode accounts_curl_set_size(CURL *handle, CURLoption option, curl_off_t value);
CURLcode accounts_curl_set_data_callback(CURL *handle, CURLoption option,
                                         accounts_curl_data_callback callback);
CURLcode accounts_curl_response_code(CURL *handle, long *code);

#endif
