/**
 * The TCP bulk lanes of the QUIC transport: the data path. Each pair of ranks has two TCP connections, one for the
 * point-to-point lane and one for the collective lane ({@link io.nexar.transport.quic.bulk.BulkConnection}), dialled by
 * the lower rank once the pair's QUIC connection is ready, and set up, checked and accepted by
 * {@link io.nexar.transport.quic.bulk.BulkEndpoint}. Inside: the framing (length-prefixed frames of the nexar wire
 * protocol, docs/protocol.md section 8.1), mutual TLS 1.3 through BoringSSL or the JDK's engine
 * ({@link io.nexar.transport.quic.bulk.LaneTls}), the reader that a caller waiting for a message drives itself before a
 * reader thread takes over, and the writer whose senders write their own frames.
 *
 * <p>Relation to the QUIC transport: the dependency points one way. The transport ({@code io.nexar.transport.quic})
 * creates the endpoint and hands it a {@link io.nexar.transport.quic.bulk.BulkHost} (who this rank is, where messages
 * go, the peer table's identities, a timer) and its peer links as {@link io.nexar.transport.quic.bulk.BulkPeer}s; of
 * the transport's package this one uses only the public record {@link io.nexar.transport.quic.MemberCredentials}
 * (and the certificate checks of {@code security}). A bulk lane that cannot be set up leaves its pair on QUIC; one that
 * fails after setup loses the peer, like a failed QUIC connection.
 *
 * <p>Not API: the module does not export this package (its public types are public only for the transport's package).
 */
package io.nexar.transport.quic.bulk;
