/**
 * Key derivation shared by the channel and the codec stages: {@link io.rdmaflux.crypto.Hkdf}.
 */
package io.rdmaflux.crypto;
