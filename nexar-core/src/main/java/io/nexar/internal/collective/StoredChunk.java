package io.nexar.internal.collective;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;

/**
 * A chunk copied out of its frame because its operation or round was not open yet: the sender's world rank and the
 * chunk, its payload a heap copy. Owned by its {@link EarlyStore}, which refills a chunk that was applied or dropped
 * for the next one ({@link EarlyStore#recycle}), keeping its payload buffer for a chunk of the same size: a steady
 * loop of small collectives stores its early chunks without garbage. Filled and recycled under the store's lock; held
 * in an operation's later list, under its shard's lock.
 */
final class StoredChunk {
    private int worldSrc;
    /** The chunk, refilled at each {@link #fill}; its payload is {@link #buffer}. */
    private final Message.Collective message = new Message.Collective();
    /** The heap memory of the payload, reused by the next chunk of the same size; null before the first. */
    private MemorySegment buffer;

    /**
     * Makes this the copy of chunk {@code c} from world rank {@code worldSrc}.
     *
     * @return this chunk
     */
    StoredChunk fill(int worldSrc, Message.Collective c) {
        long len = c.payload().byteSize();
        MemorySegment b = buffer;
        if (b == null || b.byteSize() != len) { // one array and one segment; toArray would allocate more
            b = buffer = MemorySegment.ofArray(new byte[Math.toIntExact(len)]);
        }
        Segments.copy(c.payload(), 0, b, 0, len);
        this.worldSrc = worldSrc;
        message.set(c.communicator(), c.opSeq(), c.step(), c.operation(), c.dataType(), c.reduceOp(), c.root(),
                c.count(), c.totalBytes(), c.offset(), b);
        return this;
    }

    /** @return world rank of the sender */
    int worldSrc() {
        return worldSrc;
    }

    /** @return the chunk, its payload a heap copy */
    Message.Collective message() {
        return message;
    }

    /** @return bytes of payload buffer this chunk keeps for its reuse */
    long bufferBytes() {
        return buffer == null ? 0 : buffer.byteSize();
    }
}
