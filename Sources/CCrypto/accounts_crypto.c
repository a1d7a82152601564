#include "accounts_crypto.h"

#include <accounts_lazy_library.h>
/* Field names such as mpi_powm are also macros of gcrypt.h unless this is defined. */
#define GCRYPT_NO_MPI_MACROS
#define GCRYPT_NO_DEPRECATED
#include <gcrypt.h>
#include <string.h>

/* The slots' types are the header's own declarations, so the compiler checks every call. */
static struct {
  __typeof__(gcry_check_version) *check_version;
  __typeof__(gcry_control) *control;
  __typeof__(gcry_md_get_algo_dlen) *md_get_algo_dlen;
  __typeof__(gcry_md_hash_buffer) *md_hash_buffer;
  __typeof__(gcry_md_open) *md_open;
  __typeof__(gcry_md_setkey) *md_setkey;
  __typeof__(gcry_md_write) *md_write;
  __typeof__(gcry_md_read) *md_read;
  __typeof__(gcry_md_close) *md_close;
  __typeof__(gcry_mpi_scan) *mpi_scan;
  __typeof__(gcry_mpi_print) *mpi_print;
  __typeof__(gcry_mpi_snew) *mpi_snew;
  __typeof__(gcry_mpi_set) *mpi_set;
  __typeof__(gcry_mpi_powm) *mpi_powm;
  __typeof__(gcry_mpi_release) *mpi_release;
  __typeof__(gcry_cipher_open) *cipher_open;
  __typeof__(gcry_cipher_setkey) *cipher_setkey;
  __typeof__(gcry_cipher_setiv) *cipher_setiv;
  __typeof__(gcry_cipher_encrypt) *cipher_encrypt;
  __typeof__(gcry_cipher_decrypt) *cipher_decrypt;
  __typeof__(gcry_cipher_close) *cipher_close;
} gcry;

#define SYMBOL(field) {"gcry_" #field, (void **)&gcry.field}

static const struct accounts_lazy_symbol symbols[] = {
    SYMBOL(check_version), SYMBOL(control),       SYMBOL(md_get_algo_dlen), SYMBOL(md_hash_buffer),
    SYMBOL(md_open),       SYMBOL(md_setkey),     SYMBOL(md_write),         SYMBOL(md_read),
    SYMBOL(md_close),      SYMBOL(mpi_scan),      SYMBOL(mpi_print),        SYMBOL(mpi_snew),
    SYMBOL(mpi_set),       SYMBOL(mpi_powm),      SYMBOL(mpi_release),      SYMBOL(cipher_open),
    SYMBOL(cipher_setkey), SYMBOL(cipher_setiv),  SYMBOL(cipher_encrypt),   SYMBOL(cipher_decrypt),
    SYMBOL(cipher_close),  {NULL, NULL},
};

/* As libsecret's egg_libgcrypt_initialize does, unless it (or anyone) already has: the version
 * check that every program must make first, secure memory for keys (without its warning when
 * the memory cannot be locked), and the end of initialisation. */
static const char *prepare(void) {
  if (gcry.check_version("1.8.0") == NULL) return "libgcrypt is older than 1.8 (install a newer libgcrypt20)";
  if (!gcry.control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
    gcry.control(GCRYCTL_DISABLE_SECMEM_WARN);
    gcry.control(GCRYCTL_INIT_SECMEM, 32768, 0);
    gcry.control(GCRYCTL_INITIALIZATION_FINISHED, 0);
  }
  return NULL;
}

static struct accounts_lazy_library library =
    ACCOUNTS_LAZY_LIBRARY("libgcrypt.so.20", "libgcrypt20", symbols, prepare);

const char *accounts_crypto_load(void) { return accounts_lazy_load(&library); }

static int known(int hash) {
  return hash == ACCOUNTS_CRYPTO_MD5 || hash == ACCOUNTS_CRYPTO_SHA1 || hash == ACCOUNTS_CRYPTO_SHA256 ||
         hash == ACCOUNTS_CRYPTO_SHA512;
}

size_t accounts_crypto_digest_length(int hash) { return known(hash) ? gcry.md_get_algo_dlen(hash) : 0; }

int accounts_crypto_digest(int hash, const void *data, size_t length, uint8_t *out) {
  if (!known(hash)) return -1;
  gcry.md_hash_buffer(hash, out, length > 0 ? data : "", length);
  return 0;
}

int accounts_crypto_hmac(int hash, const void *key, size_t key_length, const void *data, size_t length,
                         uint8_t *out) {
  if (!known(hash)) return -1;
  gcry_md_hd_t md;
  if (gcry.md_open(&md, hash, GCRY_MD_FLAG_HMAC | GCRY_MD_FLAG_SECURE) != 0) return -1;
  /* An empty key is the block of zero bytes HMAC pads every key to, as is one zero byte: some
   * libgcrypt versions refuse a key of length 0. */
  static const uint8_t zero = 0;
  int failed = key_length > 0 ? gcry.md_setkey(md, key, key_length) != 0 : gcry.md_setkey(md, &zero, 1) != 0;
  if (!failed) {
    if (length > 0) gcry.md_write(md, data, length);
    const unsigned char *digest = gcry.md_read(md, hash);
    if (digest == NULL) failed = 1;
    else memcpy(out, digest, gcry.md_get_algo_dlen(hash));
  }
  gcry.md_close(md);
  return failed ? -1 : 0;
}

/* An unsigned big-endian number as an MPI; in secure memory when `secret` (copied there from
 * the scanned one, which libgcrypt wipes as it frees it). */
static gcry_mpi_t number(const uint8_t *bytes, size_t length, int secret) {
  static const uint8_t zero = 0;
  gcry_mpi_t value = NULL;
  if (gcry.mpi_scan(&value, GCRYMPI_FMT_USG, length > 0 ? bytes : &zero, length > 0 ? length : 1, NULL) != 0)
    return NULL;
  if (!secret) return value;
  gcry_mpi_t copy = gcry.mpi_snew(length * 8);
  if (copy != NULL) gcry.mpi_set(copy, value);
  gcry.mpi_release(value);
  return copy;
}

int accounts_crypto_power_mod(const uint8_t *base, size_t base_length, const uint8_t *exponent,
                              size_t exponent_length, const uint8_t *modulus, size_t modulus_length,
                              uint8_t *out) {
  gcry_mpi_t b = number(base, base_length, 0);
  gcry_mpi_t e = number(exponent, exponent_length, 1);
  gcry_mpi_t m = number(modulus, modulus_length, 0);
  gcry_mpi_t result = gcry.mpi_snew(modulus_length * 8);
  int failed = b == NULL || e == NULL || m == NULL || result == NULL;
  size_t written = 0;
  if (!failed) {
    gcry.mpi_powm(result, b, e, m);
    /* USG writes the minimal bytes: print at the end of `out`, then zero what is before. */
    memset(out, 0, modulus_length);
    failed = gcry.mpi_print(GCRYMPI_FMT_USG, out, modulus_length, &written, result) != 0 || written > modulus_length;
    if (!failed && written < modulus_length) {
      memmove(out + (modulus_length - written), out, written);
      memset(out, 0, modulus_length - written);
    }
  }
  gcry.mpi_release(b);
  gcry.mpi_release(e);
  gcry.mpi_release(m);
  gcry.mpi_release(result);
  return failed ? -1 : 0;
}

int accounts_crypto_aes128_cbc(int encrypt, const uint8_t *key, const uint8_t *iv, uint8_t *data, size_t length) {
  if (length % 16 != 0) return -1;
  gcry_cipher_hd_t cipher;
  if (gcry.cipher_open(&cipher, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_CBC, GCRY_CIPHER_SECURE) != 0) return -1;
  int failed = gcry.cipher_setkey(cipher, key, 16) != 0 || gcry.cipher_setiv(cipher, iv, 16) != 0;
  if (!failed && length > 0) {
    failed = (encrypt ? gcry.cipher_encrypt(cipher, data, length, NULL, 0)
                      : gcry.cipher_decrypt(cipher, data, length, NULL, 0)) != 0;
  }
  gcry.cipher_close(cipher);
  return failed ? -1 : 0;
}
