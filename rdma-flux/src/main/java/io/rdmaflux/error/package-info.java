/**
 * What every failure in the project is: an {@link io.rdmaflux.error.RdmaFluxException} with an
 * {@link io.rdmaflux.error.ErrorCode} that says why (the code also travels in ERROR frames, so
 * both ends of a channel report the same cause). The one package every module uses; it uses
 * none.
 */
package io.rdmaflux.error;
