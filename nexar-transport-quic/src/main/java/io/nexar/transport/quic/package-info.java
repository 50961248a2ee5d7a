/**
 * The network transport of nexar: QUIC between every pair of ranks (control, RPC, and data for pairs without a bulk
 * lane), peer links and formation, the cluster CA. The mutual-TLS bulk lanes that carry the data live in
 * {@code io.nexar.transport.quic.bulk}, which sees this package only through the interfaces it defines.
 */
package io.nexar.transport.quic;
