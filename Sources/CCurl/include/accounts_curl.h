/*
 * Typed entry points for the parts of libcurl that Swift cannot call: curl_easy_setopt and
 * curl_easy_getinfo are variadic. One function per argument type; nothing else lives here.
 */
#ifndef ACCOUNTS_CURL_H
#define ACCOUNTS_CURL_H

#include <curl/curl.h>

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
