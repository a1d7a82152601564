/*
 * libidn2 for host names as users write them (UTS #46: IDNA 2008 with the mappings browsers
 * and curl apply), loaded with dlopen the first time a non-ASCII host is met: no command needs
 * it otherwise. libidn2 comes with libcurl (Debian: libidn2-0). The header is only for types.
 */
#ifndef ACCOUNTS_IDN_H
#define ACCOUNTS_IDN_H

/** Loads libidn2.so.0, once per process. NULL when ready, else why not (a static string).
 *  Call it before any other function here. */
const char *accounts_idn_load(void);

/** The ASCII form of the UTF-8 host name `host` ("xn--mnchen-3ya.de" for "münchen.de"), by
 *  UTS #46 non-transitional processing of its NFC form (idn2_to_ascii_8z with
 *  IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT): decomposed, fullwidth and upper-case input gives
 *  the name a resolver looks up. 0 with `*ascii` set (release it with accounts_idn_free),
 *  else libidn2's error code (accounts_idn_strerror names it). */
int accounts_idn_to_ascii(const char *host, char **ascii);

/** libidn2's text for an error code of accounts_idn_to_ascii. */
const char *accounts_idn_strerror(int code);

/** Releases what accounts_idn_to_ascii returned. */
void accounts_idn_free(char *text);

#endif
