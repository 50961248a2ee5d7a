package io.nexar.transport.quic;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * What a member needs to speak mutual TLS with the rest of the cluster: its private key (which never leaves the
 * process), its certificate chain (leaf first, issued by the cluster CA), the cluster CA certificate it trusts, and
 * the member identity its certificate names.
 *
 * @param privateKey the member's private key
 * @param chain the member's certificate chain, leaf first
 * @param clusterCa the cluster CA certificate: the only trust anchor for peer links
 * @param memberId the identity in the leaf's SAN (see {@link MemberIdentity})
 */
public record MemberCredentials(PrivateKey privateKey, List<X509Certificate> chain, X509Certificate clusterCa,
                                String memberId) {
    public MemberCredentials {
        chain = List.copyOf(chain);
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("certificate chain is empty");
        }
    }

    /** The leaf certificate. */
    public X509Certificate leaf() {
        return chain.getFirst();
    }
}
