package io.nexar.internal.protocol;

import io.nexar.ErrorCode;

/**
 * How a remote call ended on the callee ({@link Message.RpcResponse}); the code travels as one byte, and so does the
 * {@link ErrorCode} of a failure ({@link #wireCode(ErrorCode)}). Codes are never reused.
 */
public enum RpcStatus {
    /** The handler returned; the payload is its response. */
    OK(0),
    /** The handler threw; the response names the exception's class and message. */
    FAILED(1),
    /** No handler is registered for the function id on that communicator (answered at once, never ignored). */
    UNKNOWN_FUNCTION(2),
    /** The callee already runs its limit of requests from the caller (setting {@code rpc.max.in.flight}). */
    OVERLOADED(3);

    private final int code;

    RpcStatus(int code) {
        this.code = code;
    }

    /** The wire code. */
    public int code() {
        return code;
    }

    /** The status for a wire code, or null if unknown. */
    public static RpcStatus fromCode(int code) {
        for (RpcStatus s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }

    /** The explicit wire code of an {@link ErrorCode} (1..8), independent of the enum's declaration order. */
    public static int wireCode(ErrorCode code) {
        return switch (code) {
            case UNAVAILABLE -> 1;
            case ABORTED -> 2;
            case DEADLINE_EXCEEDED -> 3;
            case FAILED_PRECONDITION -> 4;
            case INVALID_ARGUMENT -> 5;
            case PROTOCOL -> 6;
            case CANCELLED -> 7;
            case INTERNAL -> 8;
        };
    }

    /** The {@link ErrorCode} of a wire code, or null if unknown. */
    public static ErrorCode errorCode(int wireCode) {
        for (ErrorCode c : ErrorCode.values()) {
            if (wireCode(c) == wireCode) {
                return c;
            }
        }
        return null;
    }
}
