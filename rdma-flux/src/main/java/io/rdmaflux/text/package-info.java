/**
 * Text from the other side made safe to print: {@link io.rdmaflux.text.RemoteText}, the one
 * sanitizer for every string a peer or a remote host sends before a person sees it; and
 * {@link io.rdmaflux.text.Plural}, the counts in messages ("1 file", "2 files").
 */
package io.rdmaflux.text;
