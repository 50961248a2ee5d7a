/** The network transport of nexar: QUIC between every pair of ranks, a mutual-TLS bulk lane, the cluster CA. */
package io.nexar.transport.quic;
