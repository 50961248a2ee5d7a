package io.nexar;

/**
 * The ranks of a communicator disagree about a collective operation: one called allReduce of 1024 F32 while another
 * called it with 512, or broadcast with another root, or a different collective altogether. Every rank involved fails
 * with this exception instead of hanging or corrupting memory: the rank that detects the difference names both ranks
 * and the field, for example {@code allReduce on rank 1 (world 2, comm 0, seq 0, peer 0) does not match rank 0:
 * count is 512 here but 1024 on rank 0}, and tells the other ranks, which fail with the same field.
 *
 * <p>After a mismatch the communicator's collectives are broken: every later collective on it fails at once with this
 * exception (the ranks' calls can no longer be paired reliably). Point-to-point messaging keeps working.
 *
 * <p>What to do: fix the program so that every rank of the communicator calls the same collectives in the same order
 * with the same count, type, operator and root (the message names the field and both ranks); run once with
 * {@code collective.verify=true} to have every call checked on every rank before it runs. Retrying cannot help
 * ({@link ErrorCode#FAILED_PRECONDITION}): continue, if at all, on a new communicator.
 */
public final class CollectiveMismatchException extends NexarException {
    private static final long serialVersionUID = 1L;
    /** The part of the call the ranks disagree on. */
    private final Field field;

    /** The part of the call the ranks disagree on; the code travels in abort messages. */
    public enum Field {
        /** Different collectives (allReduce here, broadcast there). */
        OPERATION(1),
        /** Different element counts. */
        COUNT(2),
        /** Different element types. */
        DATA_TYPE(3),
        /** Different reduce operators. */
        REDUCE_OP(4),
        /** Different roots. */
        ROOT(5),
        /** Different message sizes (for example, different counts in a V form). */
        SIZE(6),
        /** Different schedules: a message this rank's schedule does not expect (e.g. ranks configured unlike). */
        SCHEDULE(7),
        /**
         * Different buffer layouts of an allReduce: bucketed with other bucket sizes, compressed with another
         * compressor or k, or dense on one rank and bucketed or compressed on another.
         */
        LAYOUT(8);

        private final int code;

        Field(int code) {
            this.code = code;
        }

        /** {@return the field's code in abort messages} */
        public int code() {
            return code;
        }

        /**
         * The field of a wire code.
         *
         * @param code a code from an abort message
         * @return the field with that code, or null if no field has it
         */
        public static Field fromCode(int code) {
            for (Field f : values()) {
                if (f.code == code) {
                    return f;
                }
            }
            return null;
        }
    }

    /**
     * Creates the exception; its message is the context's prefix followed by {@code detail}.
     *
     * @param context where it happened; its peer is the other rank involved
     * @param field the field that differs
     * @param detail the rest of the message after the context prefix
     */
    public CollectiveMismatchException(ErrorContext context, Field field, String detail) {
        super(context, detail, null);
        this.field = field;
    }

    /** {@return the field the ranks disagree on} */
    public Field field() {
        return field;
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.FAILED_PRECONDITION;
    }
}
