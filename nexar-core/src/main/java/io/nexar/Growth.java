package io.nexar;

/**
 * What one {@link Communicator#grow} call did: how many ranks the world communicator had before and has now, and
 * whether this process is one of the workers that were just admitted.
 *
 * <p>Members keep their ranks; the admitted workers take the ranks after them, in the order the seed admitted
 * them. So rank 0 of the old world is rank 0 of the new one, the natural root for bringing newcomers up to date.
 *
 * @param previousSize ranks before the call
 * @param size ranks after the call
 * @param joinedNow true on a worker that was admitted by this growth (its first {@code grow} call)
 */
public record Growth(int previousSize, int size, boolean joinedNow) {

    /** Checks the sizes. */
    public Growth {
        if (previousSize < 1 || size < previousSize) {
            throw new IllegalArgumentException("sizes " + previousSize + " -> " + size + " are not a growth");
        }
    }

    /** {@return how many ranks were admitted} */
    public int added() {
        return size - previousSize;
    }

    /** {@return true if ranks were admitted} */
    public boolean grew() {
        return size > previousSize;
    }
}
