/*
 * The cryptography accounts does itself, from libgcrypt (what libsecret uses for the same
 * Secret Service session), loaded with dlopen the first time a command needs it: the Secret
 * Service session's Diffie-Hellman and AES-128-CBC, HMACs for one-time codes and HKDF, and the
 * digests the adapter host lends adapters. Nothing here is cryptography of our own: each call
 * hands its bytes to libgcrypt.
 *
 * Call accounts_crypto_load first; every other function assumes it returned NULL.
 */
#ifndef ACCOUNTS_CRYPTO_H
#define ACCOUNTS_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

/** Loads libgcrypt.so.20 and initialises it (unless libsecret in this process already has),
 *  once per process. NULL when ready, else why not (a static string). */
const char *accounts_crypto_load(void);

/** The hash functions, numbered as libgcrypt numbers them. */
enum accounts_crypto_hash {
  ACCOUNTS_CRYPTO_MD5 = 1,
  ACCOUNTS_CRYPTO_SHA1 = 2,
  ACCOUNTS_CRYPTO_SHA256 = 8,
  ACCOUNTS_CRYPTO_SHA512 = 10,
};

/** The length in bytes of `hash`'s digest; 0 for a number not in the enum. */
size_t accounts_crypto_digest_length(int hash);

/** `hash` of `length` bytes at `data` into `out` (digest_length bytes). 0 on success. */
int accounts_crypto_digest(int hash, const void *data, size_t length, uint8_t *out);

/** HMAC-`hash` of `data` under `key` into `out` (digest_length bytes); the key may be empty.
 *  The state lives in libgcrypt's secure memory. 0 on success. */
int accounts_crypto_hmac(int hash, const void *key, size_t key_length, const void *data, size_t length,
                         uint8_t *out);

/** base ^ exponent mod modulus, every number unsigned big-endian (leading zeros allowed), the
 *  result left-padded to `modulus_length` bytes in `out`. The exponent and the result are held
 *  in libgcrypt's secure memory, wiped when released. 0 on success. */
int accounts_crypto_power_mod(const uint8_t *base, size_t base_length, const uint8_t *exponent,
                              size_t exponent_length, const uint8_t *modulus, size_t modulus_length,
                              uint8_t *out);

/** AES-128 in CBC mode over `length` bytes (a multiple of 16) in place: encrypts when
 *  `encrypt` is non-zero, else decrypts. `key` and `iv` are 16 bytes. 0 on success. */
int accounts_crypto_aes128_cbc(int encrypt, const uint8_t *key, const uint8_t *iv, uint8_t *data, size_t length);

#endif
