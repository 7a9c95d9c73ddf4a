/*
 * librdflux-openssl3.so: lets Apache Commons Crypto 1.2.0's OpenSSL binding run on OpenSSL 3.
 *
 * The binding opens "libcrypto.so" and looks up each function it uses through that handle.
 * OpenSSL 3 turned two of them into macros, so the lookup fails and the binding does not load.
 * This library defines those two as functions over their OpenSSL 3 names and links libcrypto
 * itself: a lookup through its handle finds the two here and every other function in libcrypto,
 * in the dependency it names. The Java side (io.rdmaflux.codec.OpenSslShim) makes the binding
 * open this file instead of the system's libcrypto.so.
 *
 * Built against OpenSSL 1.1 headers it defines nothing and only forwards to libcrypto 1.1,
 * where the binding finds the real functions.
 */
#include <openssl/evp.h>
#include <openssl/opensslv.h>

#if defined(OPENSSL_VERSION_MAJOR) && OPENSSL_VERSION_MAJOR >= 3

#undef EVP_CIPHER_CTX_block_size
#undef EVP_CIPHER_flags

int EVP_CIPHER_CTX_block_size(const EVP_CIPHER_CTX *ctx)
{
    return EVP_CIPHER_CTX_get_block_size(ctx);
}

unsigned long EVP_CIPHER_flags(const EVP_CIPHER *cipher)
{
    return EVP_CIPHER_get_flags(cipher);
}

#endif
