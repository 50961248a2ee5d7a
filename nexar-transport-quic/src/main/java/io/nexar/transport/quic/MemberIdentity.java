package io.nexar.transport.quic;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Member identities in certificates. A member certificate carries exactly one SAN of type URI,
 * {@code nexar:member:<memberId>}, where memberId is lowercase hex assigned by the seed. Peer links check it
 * against the peer table (never the host name).
 */
public final class MemberIdentity {
    /** The URI prefix of a member SAN. */
    public static final String URI_PREFIX = "nexar:member:";
    private static final int SAN_URI = 6;

    private MemberIdentity() {
    }

    /** The SAN URI for {@code memberId}. */
    public static String uri(String memberId) {
        return URI_PREFIX + memberId;
    }

    /** The member id named by {@code cert}, if it names exactly one. */
    public static Optional<String> of(X509Certificate cert) {
        Collection<List<?>> sans;
        try {
            sans = cert.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            return Optional.empty();
        }
        if (sans == null) {
            return Optional.empty();
        }
        String found = null;
        for (List<?> san : sans) {
            if (san.size() >= 2 && san.get(0) instanceof Integer type && type == SAN_URI
                    && san.get(1) instanceof String uri && uri.startsWith(URI_PREFIX)) {
                if (found != null) {
                    return Optional.empty();
                }
                found = uri.substring(URI_PREFIX.length());
            }
        }
        return Optional.ofNullable(found).filter(id -> !id.isEmpty());
    }
}
