package io.nexar;

/**
 * How {@link Communicator#allReduceCompressed} sparsifies a buffer: each rank sends only {@code k} of its
 * {@code count} elements (their indices and values), and keeps what it did not send in a caller-owned residual that is
 * added to the next call's input (error feedback). Compressors are immutable values; one may serve any number of
 * buffers and threads.
 *
 * <p>Every rank must pass a compressor of the same kind and the same {@code k} for a call (the payload sizes must
 * agree); a rank that differs fails the call on every rank with a {@link CollectiveMismatchException} naming
 * {@link CollectiveMismatchException.Field#LAYOUT}.
 */
public sealed interface Compressor permits Compressor.TopK, Compressor.RandomK {

    /**
     * How many elements a rank sends for a buffer of {@code count} elements: at least 1 (0 for an empty buffer) and at
     * most {@code count}.
     *
     * @param count the number of elements of the buffer
     * @return the number of elements sent for it
     */
    long kept(long count);

    /**
     * Top-k: sends the {@code k} elements of largest magnitude of (residual + input); ties go to the lower index, a
     * NaN counts as larger than any number. Selection is linear in the count (a quickselect on the magnitudes), not a
     * sort. Give either a count ({@link #count}) or a ratio ({@link #ratio}).
     *
     * @param k elements sent per call, or 0 when {@code ratio} is given
     * @param ratio fraction of the elements sent per call, in (0, 1], or 0 when {@code k} is given; the count sent is
     *              {@code ceil(count * ratio)}, at least 1
     */
    record TopK(long k, double ratio) implements Compressor {
        /** Checks that exactly one of {@code k} and {@code ratio} is given. */
        public TopK {
            boolean byCount = k > 0 && ratio == 0;
            boolean byRatio = k == 0 && ratio > 0 && ratio <= 1;
            if (!byCount && !byRatio) {
                throw new IllegalArgumentException("TopK needs k >= 1 or a ratio in (0, 1] (not both), got k " + k
                        + " and ratio " + ratio);
            }
        }

        /**
         * Top-k sending {@code k} elements per call (all of them if the buffer is smaller).
         *
         * @param k elements sent per call, at least 1
         * @return the compressor
         */
        public static TopK count(long k) {
            return new TopK(k, 0);
        }

        /**
         * Top-k sending {@code ceil(count * ratio)} elements per call, for example 0.01 for 1%.
         *
         * @param ratio fraction of the elements sent per call, in (0, 1]
         * @return the compressor
         */
        public static TopK ratio(double ratio) {
            return new TopK(0, ratio);
        }

        @Override
        public long kept(long count) {
            return Compressor.clamp(k > 0 ? k : (long) Math.ceil(count * ratio), count);
        }
    }

    /**
     * Random-k: sends {@code k} elements of (residual + input) chosen uniformly at random without replacement, from a
     * generator seeded with {@code seed} and the call's sequence number on the communicator. Ranks that pass the same
     * seed therefore choose the same indices in a call (the reduction then has at most k nonzero elements) and other
     * indices in the next call. Values are sent as they are, not rescaled by count/k: error feedback makes up for what
     * is not sent.
     *
     * @param k elements sent per call, at least 1
     * @param seed the generator's seed
     */
    record RandomK(long k, long seed) implements Compressor {
        /** Checks {@code k}. */
        public RandomK {
            if (k < 1) {
                throw new IllegalArgumentException("RandomK needs k >= 1, got " + k);
            }
        }

        @Override
        public long kept(long count) {
            return Compressor.clamp(k, count);
        }
    }

    private static long clamp(long k, long count) {
        return count == 0 ? 0 : Math.clamp(k, 1, count);
    }
}
