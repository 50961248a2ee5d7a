/**
 * Cluster security (docs/design.md section 4): the cluster CA ({@link io.nexar.transport.quic.security.ClusterCa}), member
 * key pairs and CSRs ({@link io.nexar.transport.quic.security.MemberKeys}), the join secret and join string
 * ({@link io.nexar.transport.quic.security.JoinToken}, {@link io.nexar.transport.quic.security.JoinString}), and the
 * checks every peer link applies: chain to the cluster CA plus the expected member identity
 * ({@link io.nexar.transport.quic.security.PeerVerifier}), packaged as JDK/Netty TLS 1.3 material by
 * {@link io.nexar.transport.quic.security.TlsMaterial}. There is no mode that skips verification.
 */
package io.nexar.transport.quic.security;
