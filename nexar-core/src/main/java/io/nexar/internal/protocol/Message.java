package io.nexar.internal.protocol;

import java.lang.foreign.MemorySegment;

/**
 * Every message nexar puts on the wire: one sealed hierarchy of records, each with an explicit {@link MessageType}.
 * {@link MessageCodec} encodes and decodes them; docs/protocol.md lists every byte.
 */
public sealed interface Message permits Message.Hello, Message.Data, Message.Heartbeat, Message.Goodbye,
        Message.Collective, Message.CollectiveAbort, Message.Agree, Message.Status, Message.RpcRequest,
        Message.RpcResponse, Message.RpcCancel, Message.Relay, Message.PeerDown, Message.Quiesce,
        EnrolmentMessage /* the seed/worker enrolment records, in their own file */ {

    /** This message's type code. */
    MessageType type();

    /**
     * First message on every connection, in both directions. A peer whose version is not supported is refused.
     *
     * @param version the protocol version the sender speaks ({@link WireFormat#VERSION})
     * @param rank the sender's rank in the world communicator
     * @param worldSize the sender's view of the world size
     * @param incarnation a random 64-bit number that changes every time a member process starts
     */
    record Hello(int version, int rank, int worldSize, long incarnation) implements Message {
        @Override
        public MessageType type() {
            return MessageType.HELLO;
        }
    }

    /**
     * One chunk of a point-to-point message. A message of {@code totalBytes} bytes travels as one or more chunks
     * with increasing {@code offset}; an empty message is one chunk with an empty payload.
     *
     * @param communicator the communicator id
     * @param tag the user tag, {@code >= 0}
     * @param messageSeq per (sender, receiver, communicator) sequence number, starting at 0 and increasing by one
     *                   per message (not per chunk); receivers match the messages of one tag in this order (MPI's
     *                   non-overtaking rule) whatever lane each took
     * @param totalBytes the size of the whole message
     * @param offset where this chunk's payload starts in the message
     * @param payload the chunk's bytes; on decode a view of the frame, valid only while the frame is
     */
    record Data(int communicator, int tag, long messageSeq, long totalBytes, long offset, MemorySegment payload)
            implements Message {
        @Override
        public MessageType type() {
            return MessageType.DATA;
        }
    }

    /**
     * Liveness signal on the control lane.
     *
     * @param sequence increases by one per heartbeat sent to this peer
     * @param sentNanos the sender's monotonic clock when sent (for round-trip estimates only; clocks differ)
     */
    record Heartbeat(long sequence, long sentNanos) implements Message {
        @Override
        public MessageType type() {
            return MessageType.HEARTBEAT;
        }
    }

    /**
     * The sender is leaving; the receiver fails pending operations that involve it.
     *
     * @param reason why
     * @param detail a human-readable explanation, at most {@link WireFormat#MAX_TEXT_BYTES} bytes of UTF-8
     */
    record Goodbye(GoodbyeReason reason, String detail) implements Message {
        @Override
        public MessageType type() {
            return MessageType.GOODBYE;
        }
    }

    /**
     * One chunk of one step of a collective operation's schedule. Every chunk carries the operation's fingerprint,
     * so a receiver whose own call differs detects the mismatch instead of corrupting memory. A step's message of
     * {@code totalBytes} bytes travels as one or more chunks with increasing {@code offset}, each a whole number of
     * elements.
     *
     * @param communicator the communicator id, {@code >= 0}
     * @param opSeq the operation's sequence number on the communicator, {@code >= 0}; every rank numbers its
     *              collective calls on a communicator 0, 1, 2, ...
     * @param step the schedule round the message belongs to, {@code >= 0}; together with the communicator, opSeq and
     *             sender it identifies the message (a structured tag, never arithmetic)
     * @param operation fingerprint: the operation's code, 0..255
     * @param dataType fingerprint: the element type's code, 0..255
     * @param reduceOp fingerprint: the reduce operator's code, 0..255 (0 when the operation does not reduce)
     * @param root fingerprint: the root rank, or -1 for rootless operations
     * @param count fingerprint: the element count every rank passed, or -1 when ranks pass different counts
     * @param totalBytes the size of the step's whole message
     * @param offset where this chunk's payload starts in the step's message
     * @param payload the chunk's bytes; on decode a view of the frame, valid only while the frame is
     *
     * <p>Unlike the other messages this is not a record: its owner may {@linkplain #set refill} it, so that the data
     * path does not build one per chunk (an operation's driver sends every chunk from one, a reader decodes every
     * frame into one). Whoever is handed a message owns it only until the call it was passed to returns: what keeps a
     * chunk (the collective engine's store) keeps a copy. Equality is a record's: field by field.
     */
    final class Collective implements Message {
        private int communicator;
        private long opSeq;
        private int step;
        private int operation;
        private int dataType;
        private int reduceOp;
        private int root;
        private long count;
        private long totalBytes;
        private long offset;
        private MemorySegment payload;
        /**
         * The memory whose frame was last decoded into this message by {@link MessageCodec#decode(int, MemorySegment,
         * long, long, Collective)}, or null: a frame of the same size there has the same payload view, kept.
         */
        MemorySegment decodedFrom;

        /** An empty message, for an owner to {@linkplain #set fill} (no payload yet). */
        public Collective() {
            this(0, 0, 0, 0, 0, 0, -1, 0, 0, 0, MemorySegment.NULL);
        }

        /** A message with these fields (see the class's parameters). */
        public Collective(int communicator, long opSeq, int step, int operation, int dataType, int reduceOp, int root,
                          long count, long totalBytes, long offset, MemorySegment payload) {
            set(communicator, opSeq, step, operation, dataType, reduceOp, root, count, totalBytes, offset, payload);
        }

        /**
         * Refills this message, for its owner only (see the class's comment).
         *
         * @return this message
         */
        public Collective set(int communicator, long opSeq, int step, int operation, int dataType, int reduceOp,
                              int root, long count, long totalBytes, long offset, MemorySegment payload) {
            this.communicator = communicator;
            this.opSeq = opSeq;
            this.step = step;
            this.operation = operation;
            this.dataType = dataType;
            this.reduceOp = reduceOp;
            this.root = root;
            this.count = count;
            this.totalBytes = totalBytes;
            this.offset = offset;
            this.payload = payload;
            this.decodedFrom = null;
            return this;
        }

        /** @return the communicator id */
        public int communicator() {
            return communicator;
        }

        /** @return the operation's sequence number */
        public long opSeq() {
            return opSeq;
        }

        /** @return the schedule round */
        public int step() {
            return step;
        }

        /** @return the operation's code */
        public int operation() {
            return operation;
        }

        /** @return the element type's code */
        public int dataType() {
            return dataType;
        }

        /** @return the reduce operator's code */
        public int reduceOp() {
            return reduceOp;
        }

        /** @return the root rank, or -1 */
        public int root() {
            return root;
        }

        /** @return the element count, or -1 */
        public long count() {
            return count;
        }

        /** @return the size of the step's whole message */
        public long totalBytes() {
            return totalBytes;
        }

        /** @return where this chunk starts in the step's message */
        public long offset() {
            return offset;
        }

        /** @return the chunk's bytes */
        public MemorySegment payload() {
            return payload;
        }

        @Override
        public MessageType type() {
            return MessageType.COLLECTIVE;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Collective c && communicator == c.communicator && opSeq == c.opSeq && step == c.step
                    && operation == c.operation && dataType == c.dataType && reduceOp == c.reduceOp && root == c.root
                    && count == c.count && totalBytes == c.totalBytes && offset == c.offset
                    && java.util.Objects.equals(payload, c.payload);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(communicator, opSeq, step, operation, dataType, reduceOp, root, count,
                    totalBytes, offset, payload);
        }

        @Override
        public String toString() {
            return "Collective[communicator=" + communicator + ", opSeq=" + opSeq + ", step=" + step + ", operation="
                    + operation + ", dataType=" + dataType + ", reduceOp=" + reduceOp + ", root=" + root + ", count="
                    + count + ", totalBytes=" + totalBytes + ", offset=" + offset + ", payload=" + payload + "]";
        }
    }

    /**
     * The sender failed collective operation {@code opSeq} on {@code communicator}; the receiver fails it too (at
     * once if posted, when posted otherwise) instead of waiting for messages that will never come.
     *
     * @param communicator the communicator id, {@code >= 0}
     * @param opSeq the failed operation's sequence number, {@code >= 0}
     * @param reason why
     * @param field for {@link AbortReason#MISMATCH}, the code of the fingerprint field that differed (0 if none)
     * @param culprit for {@link AbortReason#FAILED} because a rank failed or left, that rank's world rank, so that
     *        every member names the rank that failed rather than the one that told it; -1 otherwise
     * @param detail a human-readable explanation, at most {@link WireFormat#MAX_TEXT_BYTES} bytes of UTF-8
     */
    record CollectiveAbort(int communicator, long opSeq, AbortReason reason, int field, int culprit, String detail)
            implements Message {
        @Override
        public MessageType type() {
            return MessageType.COLLECTIVE_ABORT;
        }
    }

    /**
     * One step of the agreement on the failed members of a communicator (control lane; docs/failure-model.md).
     * Ranks are world ranks, each set sorted and without duplicates.
     *
     * @param communicator the communicator being shrunk, {@code >= 0}
     * @param generation how many recoveries preceded this one in the communicator's lineage (for reports)
     * @param kind the step
     * @param failed PROPOSE: the sender's failed set; ACCEPT and ACK: the ballot; DECIDE: empty
     * @param acceptedBallot PROPOSE: the ballot of the value the sender accepted last, or null if none; else null
     * @param value PROPOSE: the value accepted last (empty if none); ACCEPT and DECIDE: the value; ACK: empty
     */
    record Agree(int communicator, int generation, AgreeKind kind, int[] failed, int[] acceptedBallot, int[] value)
            implements Message {
        @Override
        public MessageType type() {
            return MessageType.AGREE;
        }
    }

    /**
     * A hang report's question or answer (control lane; docs/failure-model.md "Hang reports"): a rank whose operation
     * made no progress for {@code hang.report.after} asks the ranks it waits for what they are doing.
     *
     * @param reply false for the question (no ranks, empty text), true for the answer
     * @param requestId chosen by the asker, echoed in the answer
     * @param waitingFor the answer: world ranks the answering rank itself waits for (sorted, no duplicates)
     * @param text the answer: what the answering rank is doing, at most {@link WireFormat#MAX_TEXT_BYTES} of UTF-8
     */
    record Status(boolean reply, long requestId, int[] waitingFor, String text) implements Message {
        @Override
        public MessageType type() {
            return MessageType.STATUS;
        }
    }

    /**
     * A remote call (RPC lane): run function {@code functionId} of communicator {@code communicator} on the receiver
     * with {@code payload} and answer with an {@link RpcResponse} carrying the same {@code requestId}.
     *
     * @param communicator the communicator id the caller called on, {@code >= 0}; the callee looks the function up in
     *                     that communicator's registry and names the caller by its rank there
     * @param requestId chosen by the caller, unique among its calls in flight to this receiver
     * @param functionId the registered function, {@code >= 0}
     * @param timeoutNanos what was left of the caller's deadline when it sent the request, {@code >= 0} (the caller
     *                     gives up then and sends an {@link RpcCancel})
     * @param payload the request; on decode a view of the frame, valid only while the frame is
     */
    record RpcRequest(int communicator, long requestId, int functionId, long timeoutNanos, MemorySegment payload)
            implements Message {
        @Override
        public MessageType type() {
            return MessageType.RPC_REQUEST;
        }
    }

    /**
     * How a remote call ended (RPC lane).
     *
     * @param requestId the request's id
     * @param status OK, or why the call failed
     * @param code OK: null; otherwise the failure's {@link io.nexar.ErrorCode}
     * @param remoteClass FAILED: the class name of the exception the handler threw; otherwise empty; at most
     *                    {@link WireFormat#MAX_TEXT_BYTES} bytes of UTF-8
     * @param detail OK: empty; otherwise the exception's message or the reason, at most
     *               {@link WireFormat#MAX_TEXT_BYTES} bytes of UTF-8
     * @param payload OK: the handler's response; otherwise empty. On decode a view of the frame
     */
    record RpcResponse(long requestId, RpcStatus status, io.nexar.ErrorCode code, String remoteClass, String detail,
                       MemorySegment payload) implements Message {
        @Override
        public MessageType type() {
            return MessageType.RPC_RESPONSE;
        }
    }

    /**
     * The caller gave up on call {@code requestId} (cancelled, interrupted or timed out): the callee interrupts the
     * handler's thread and sends no response (RPC lane).
     *
     * @param requestId the request's id
     */
    record RpcCancel(long requestId) implements Message {
        @Override
        public MessageType type() {
            return MessageType.RPC_CANCEL;
        }
    }

    /**
     * A frame on its way to a rank that is not a neighbour of its origin (sparse topologies, docs/protocol.md
     * "Relay"): each relay checks it and hands it to its next hop; the destination decodes the inner frame as if it
     * came from {@code origin}.
     *
     * @param origin the world rank that sent the inner frame, {@code >= 0}
     * @param destination the world rank it is for, {@code >= 0}, not the origin
     * @param hops the links taken so far including this one, 1 to {@code hopLimit}
     * @param hopLimit the most links the frame may take, 1 to 255
     * @param frame the inner frame, whole; a peer message other than HELLO, RELAY or enrolment. On decode a view of
     *              the outer frame, valid only while it is
     */
    record Relay(int origin, int destination, int hops, int hopLimit, MemorySegment frame) implements Message {
        @Override
        public MessageType type() {
            return MessageType.RELAY;
        }
    }

    /**
     * The sender lost its link to {@code rank} (sparse topologies, docs/protocol.md 4.9): ranks that are not that
     * rank's neighbours learn of its failure from its neighbours (control lane, relayed like any frame).
     *
     * @param rank the world rank that is down, {@code >= 0}
     * @param detail why, completing "rank N ...", at most {@link WireFormat#MAX_TEXT_BYTES} bytes of UTF-8
     */
    record PeerDown(int rank, String detail) implements Message {
        @Override
        public MessageType type() {
            return MessageType.PEER_DOWN;
        }
    }

    /**
     * One step of the close of a sparse world (docs/protocol.md 4.10), sent to a neighbour only, never relayed: on a
     * tree of neighbour links rooted at rank 0, a rank tells its parent once it and every rank below it closed
     * ({@code release} false), and rank 0 then tells every rank, down the tree, that all ranks closed and nobody
     * needs a relay any more ({@code release} true).
     *
     * @param release false going up the tree (closed), true going down (every rank closed)
     */
    record Quiesce(boolean release) implements Message {
        @Override
        public MessageType type() {
            return MessageType.QUIESCE;
        }
    }
}
