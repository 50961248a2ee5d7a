package io.nexar.transport.quic.security;

import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.Objects;

/**
 * What a worker needs to join a cluster, in one line the seed prints (like {@code kubeadm join}):
 *
 * <pre>
 * nexar://HOST:PORT?token=SECRET&amp;ca=sha256:FINGERPRINT
 * nexar://10.0.0.5:7400?token=q7Xv...43 chars...&amp;ca=sha256:3f2a...64 hex digits...
 * nexar://[::1]:7400?token=...&amp;ca=sha256:...
 * nexar://HOST:PORT?token=SECRET&amp;auth=token
 * </pre>
 *
 * HOST is a host name, an IPv4 address or a bracketed IPv6 address; PORT is 1 to 65535; SECRET is the
 * {@link JoinToken} in base64url; FINGERPRINT is the SHA-256 of the cluster CA certificate
 * ({@link ClusterCa#fingerprint()}), which the worker pins: it accepts the seed only if the seed presents that CA.
 *
 * <p>The token-only form ({@code auth=token}, no {@code ca}) is for launches without a separate seed, where no one
 * knows the CA before rank 0 starts the seed: the worker then authenticates the seed by a proof of the token bound
 * to the TLS session ({@link JoinToken#seedProof}, docs/security.md), and pins the CA the seed proved. It must be
 * asked for explicitly: a join string that lost its {@code ca} is still an error.
 *
 * <p>{@link #toString()} hides the token; {@link #format()} gives the whole string. Immutable.
 *
 * @param host the seed's host name or IP address, without brackets
 * @param port the seed's TCP port
 * @param token the join secret
 * @param caFingerprint {@code sha256:} and 64 lowercase hex digits, or null for a token-only join string
 */
public record JoinString(String host, int port, JoinToken token, String caFingerprint) {

    /** The scheme and separator every join string starts with. */
    public static final String PREFIX = "nexar://";
    private static final String FINGERPRINT_PREFIX = "sha256:";
    private static final int FINGERPRINT_HEX_DIGITS = 64;
    /** Characters of the shortest token in base64url. */
    private static final int MIN_TOKEN_TEXT = (JoinToken.MIN_BYTES * 8 + 5) / 6;

    /**
     * Checks every field; the fingerprint is normalised to lowercase.
     *
     * @throws IllegalArgumentException if a field is malformed, naming it
     */
    public JoinString {
        Objects.requireNonNull(token, "token");
        checkHost(host);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("join string port " + port + " is not in [1, 65535]");
        }
        caFingerprint = caFingerprint == null ? null : checkFingerprint(caFingerprint);
    }

    /** A token-only join string ({@code auth=token}): the seed is authenticated by its proof of the token. */
    public static JoinString tokenOnly(String host, int port, JoinToken token) {
        return new JoinString(host, port, token, null);
    }

    /** Whether this join string pins no CA and authenticates the seed by the token ({@code auth=token}). */
    public boolean tokenOnly() {
        return caFingerprint == null;
    }

    /** This join string pinning {@code fingerprint}: the seed's CA, once a token-only enrolment authenticated it. */
    public JoinString pinning(String fingerprint) {
        return new JoinString(host, port, token, fingerprint);
    }

    /**
     * Parses a join string.
     *
     * @throws IllegalArgumentException naming what is wrong (scheme, host, port, missing or repeated token or ca,
     *         fingerprint algorithm, length or digits, unknown parameter); the message never contains the token
     */
    public static JoinString parse(String text) {
        Objects.requireNonNull(text, "text");
        String s = text.strip();
        if (!s.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            throw new IllegalArgumentException("join string must start with " + PREFIX);
        }
        s = s.substring(PREFIX.length());
        int q = s.indexOf('?');
        if (q < 0) {
            throw new IllegalArgumentException("join string has no parameters: expected ?token=...&ca=sha256:...");
        }
        String authority = s.substring(0, q);
        String host;
        String portText;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0 || close + 1 >= authority.length() || authority.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("join string IPv6 host must be written [ADDRESS]:PORT");
            }
            host = authority.substring(1, close);
            portText = authority.substring(close + 2);
        } else {
            int colon = authority.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("join string has no port: expected HOST:PORT");
            }
            host = authority.substring(0, colon);
            if (host.indexOf(':') >= 0) {
                throw new IllegalArgumentException("join string IPv6 host must be in brackets: [ADDRESS]:PORT");
            }
            portText = authority.substring(colon + 1);
        }
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("join string port " + shown(portText) + " is not a number");
        }
        String token = null;
        String ca = null;
        String auth = null;
        for (String param : s.substring(q + 1).split("&", -1)) {
            int eq = param.indexOf('=');
            String name = eq < 0 ? param : param.substring(0, eq);
            String value = eq < 0 ? "" : param.substring(eq + 1);
            switch (name) {
                case "token" -> {
                    if (token != null) {
                        throw new IllegalArgumentException("join string has two token parameters");
                    }
                    token = value;
                }
                case "ca" -> {
                    if (ca != null) {
                        throw new IllegalArgumentException("join string has two ca parameters");
                    }
                    ca = value;
                }
                case "auth" -> {
                    if (auth != null) {
                        throw new IllegalArgumentException("join string has two auth parameters");
                    }
                    auth = value;
                }
                // A long name may be a token whose '=' was lost ("tokenSECRET"): the shortest token has 22
                // characters, so longer names are not quoted (found by SecurityFuzzTest).
                default -> throw new IllegalArgumentException("join string has an unknown parameter "
                        + (name.length() < MIN_TOKEN_TEXT ? shown(name) : "of " + name.length()
                        + " characters (not shown: it may hold the token)") + "; only token, ca and auth are defined");
            }
        }
        if (token == null || token.isEmpty()) {
            throw new IllegalArgumentException("join string is missing the token parameter (token=SECRET)");
        }
        if (auth != null) {
            if (!auth.equals("token")) {
                throw new IllegalArgumentException("join string auth=" + auth + " is unknown; only auth=token is"
                        + " defined");
            }
            if (ca != null) {
                throw new IllegalArgumentException("join string has both ca and auth=token; give one");
            }
            return new JoinString(host, port, JoinToken.parse(token), null);
        }
        if (ca == null || ca.isEmpty()) {
            throw new IllegalArgumentException("join string is missing the ca parameter (ca=sha256:FINGERPRINT):"
                    + " without it the seed cannot be authenticated (auth=token asks for a proof of the token"
                    + " instead, for launches without a separate seed)");
        }
        return new JoinString(host, port, JoinToken.parse(token), ca);
    }

    /**
     * {@code text} with the value of every {@code token=} parameter replaced by {@code ***}, for messages about a join
     * string that may not parse.
     */
    public static String redact(String text) {
        return text.replaceAll("(?i)(token=)[^&\\s]*", "$1***");
    }

    /** The whole join string, secret included. */
    public String format() {
        return PREFIX + hostPort() + "?token=" + token.encoded() + authParameter();
    }

    /** The seed as {@code HOST:PORT} ({@code [V6]:PORT} for an IPv6 address), for messages. */
    public String hostPort() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** The seed's address; resolved now (a host name is looked up). */
    public InetSocketAddress seedAddress() {
        return new InetSocketAddress(host, port);
    }

    /** The join string with the token replaced by {@code ***}, safe to log. */
    @Override
    public String toString() {
        return PREFIX + hostPort() + "?token=***" + authParameter();
    }

    private String authParameter() {
        return caFingerprint == null ? "&auth=token" : "&ca=" + caFingerprint;
    }

    private static void checkHost(String host) {
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("join string host is empty");
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.'
                    || c == '-' || c == ':' || c == '%' || c == '_';
            if (!ok) {
                throw new IllegalArgumentException("join string host " + shown(host) + " has character '" + c + "'");
            }
        }
    }

    /**
     * A part of a malformed join string, quoted for an error message, unless it may hold the token: a part with '='
     * or '&' can contain {@code token=SECRET} (found by SecurityFuzzTest: a '?' typed late puts the parameters into
     * the port).
     */
    private static String shown(String part) {
        return mayHoldToken(part) ? "(not shown: it may hold the token)" : "\"" + part + "\"";
    }

    private static boolean mayHoldToken(String part) {
        return part.indexOf('=') >= 0 || part.indexOf('&') >= 0;
    }

    private static String checkFingerprint(String fp) {
        if (fp == null) {
            throw new IllegalArgumentException("join string CA fingerprint is missing");
        }
        String lower = fp.toLowerCase(Locale.ROOT);
        if (!lower.startsWith(FINGERPRINT_PREFIX)) {
            int colon = lower.indexOf(':');
            throw new IllegalArgumentException("join string CA fingerprint must start with sha256:"
                    + (colon > 0 && !mayHoldToken(lower) ? ", not " + lower.substring(0, colon + 1) : ""));
        }
        String hex = lower.substring(FINGERPRINT_PREFIX.length());
        if (hex.length() != FINGERPRINT_HEX_DIGITS) {
            throw new IllegalArgumentException("join string CA fingerprint has " + hex.length()
                    + " hex digits; a SHA-256 fingerprint has " + FINGERPRINT_HEX_DIGITS);
        }
        for (int i = 0; i < hex.length(); i++) {
            char c = hex.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                throw new IllegalArgumentException("join string CA fingerprint has a non-hex character '" + c + "'");
            }
        }
        return lower;
    }
}
