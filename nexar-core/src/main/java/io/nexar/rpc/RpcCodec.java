package io.nexar.rpc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Turns values of {@code T} into request or response bytes and back, for the typed forms of {@link Rpc}. Supplied by
 * the application (nexar never serializes objects by reflection or Java serialization). Implementations must be
 * thread-safe; an exception thrown by {@link #decode} on the callee fails the call with an
 * {@link io.nexar.RpcException}, on the caller it is thrown to the caller as it is.
 *
 * @param <T> the value type
 */
public interface RpcCodec<T> {

    /**
     * The bytes of {@code value}; they are copied before the call returns.
     *
     * @param value the value to send
     * @return its bytes
     */
    MemorySegment encode(T value);

    /**
     * The value of {@code bytes} (a read-only heap segment the result may keep).
     *
     * @param bytes the bytes received
     * @return the value they encode
     */
    T decode(MemorySegment bytes);

    /** {@return a codec of byte arrays as they are} */
    static RpcCodec<byte[]> bytes() {
        return new RpcCodec<>() {
            @Override
            public MemorySegment encode(byte[] value) {
                return MemorySegment.ofArray(value);
            }

            @Override
            public byte[] decode(MemorySegment bytes) {
                return bytes.toArray(ValueLayout.JAVA_BYTE);
            }
        };
    }

    /** {@return a codec of strings as UTF-8 (malformed input is replaced, as {@link String#String(byte[], java.nio.charset.Charset)})} */
    static RpcCodec<String> utf8() {
        return new RpcCodec<>() {
            @Override
            public MemorySegment encode(String value) {
                return MemorySegment.ofArray(value.getBytes(StandardCharsets.UTF_8));
            }

            @Override
            public String decode(MemorySegment bytes) {
                return new String(bytes.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            }
        };
    }

    /** {@return a codec of 64-bit integers as 8 little-endian bytes} */
    static RpcCodec<Long> int64() {
        return new RpcCodec<>() {
            private static final ValueLayout.OfLong LE = ValueLayout.JAVA_LONG_UNALIGNED
                    .withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

            @Override
            public MemorySegment encode(Long value) {
                MemorySegment s = MemorySegment.ofArray(new byte[8]);
                s.set(LE, 0, value);
                return s;
            }

            @Override
            public Long decode(MemorySegment bytes) {
                if (bytes.byteSize() != 8) {
                    throw new IllegalArgumentException("expected 8 bytes for a 64-bit integer, got "
                            + bytes.byteSize());
                }
                return bytes.get(LE, 0);
            }
        };
    }
}
