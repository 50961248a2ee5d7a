package io.nexar.transport.quic.security;

import io.nexar.transport.quic.MemberCredentials;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * Presents one member's chain and key, in both TLS roles, whatever issuers the peer asks for. The JDK's own key
 * managers silently present no certificate when the peer's {@code certificate_authorities} do not match; this one
 * always presents the member's certificate so that the peer, not us, decides and reports why it refuses.
 *
 * <p>It reads the member's credentials at every handshake, so a renewed certificate (the same key, a new chain) is
 * presented by every connection made after the renewal; connections already open keep the one they were made with.
 */
final class MemberKeyManager extends X509ExtendedKeyManager {

    static final String ALIAS = "member";

    private final PrivateKey key;
    private final Supplier<MemberCredentials> credentials;

    MemberKeyManager(Supplier<MemberCredentials> credentials) {
        this.key = credentials.get().privateKey();
        this.credentials = credentials;
    }

    /** Whether this member's key can serve a TLS key type: "EC", "RSA", "RSASSA-PSS", or Netty's "EC_EC" forms. */
    private boolean fits(String keyType) {
        if (keyType == null) {
            return false;
        }
        return switch (key.getAlgorithm()) {
            case "EC" -> keyType.equals("EC") || keyType.startsWith("EC_");
            case "RSA" -> keyType.equals("RSA") || keyType.equals("RSASSA-PSS") || keyType.equals("DH_RSA");
            default -> keyType.equals(key.getAlgorithm());
        };
    }

    private String alias(String... keyTypes) {
        if (keyTypes != null) {
            for (String t : keyTypes) {
                if (fits(t)) {
                    return ALIAS;
                }
            }
        }
        return null;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return fits(keyType) ? new String[] {ALIAS} : null;
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
        return alias(keyTypes);
    }

    @Override
    public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
        return alias(keyTypes);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return fits(keyType) ? new String[] {ALIAS} : null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return alias(keyType);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return alias(keyType);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        return ALIAS.equals(alias) ? credentials.get().chain().toArray(X509Certificate[]::new) : null;
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        return ALIAS.equals(alias) ? credentials.get().privateKey() : null;
    }
}
