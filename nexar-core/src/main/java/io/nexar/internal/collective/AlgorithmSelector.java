package io.nexar.internal.collective;

import io.nexar.NexarConfig;
import io.nexar.Operation;

/**
 * Picks each call's algorithm from the configuration: a forced algorithm ({@code allreduce.algorithm} and friends)
 * wins, then deterministic mode, then the size thresholds. Every rank must decide alike, so the rule uses only values
 * every rank shares (the call's fingerprint, the communicator size and the configuration).
 *
 * <pre>
 * allReduce      deterministic -> rank-order; bytes <= 4 KiB (and <= allreduce.small.size) -> recursive-doubling;
 *                bytes <= allreduce.small.size -> halving-doubling; bytes >= allreduce.large.size -> pipelined-ring
 *                (default 1 TiB: in practice never); else ring
 * broadcast      bytes >= broadcast.large.size and size > 2 -> pipelined chain; else binomial
 * allGather(V)   output bytes <= allgather.small.size -> recursive-doubling; else ring
 * reduceScatter  deterministic -> rank-order; else ring          reduce  deterministic -> rank-order; else binomial
 * scan, exScan   deterministic -> linear; else recursive doubling
 * </pre>
 *
 * <p>{@code auto} picks the pipelined ring only from {@code allreduce.large.size}, 1 TiB by default, so in practice
 * never: the plain ring already overlaps reduction with transfer (each chunk of {@code chunk.size} is reduced as it
 * arrives, on the receiving thread), and the pipelined ring's one round per segment only adds a wait and a wake-up per
 * segment (docs/performance.md has the measurement). {@code allreduce.algorithm=pipelined-ring} selects it.
 */
public final class AlgorithmSelector {
    /**
     * Largest allreduce that {@code auto} gives to recursive doubling: below it a call is latency-bound, and recursive
     * doubling needs half the rounds of halving-doubling (one exchange instead of two with 2 ranks). Not a setting
     * yet: {@code allreduce.small.size} still bounds it.
     */
    static final long RECURSIVE_DOUBLING_MAX_BYTES = 4096;
    private final NexarConfig config;

    /** A selector reading {@code config}. */
    public AlgorithmSelector(NexarConfig config) {
        this.config = config;
    }

    /** The algorithms, by the name a configuration forces them with. */
    public enum Algo {
        RING_ALLREDUCE, RECURSIVE_DOUBLING_ALLREDUCE, HALVING_DOUBLING_ALLREDUCE, PIPELINED_RING_ALLREDUCE, RANK_ORDER_ALLREDUCE,
        BINOMIAL_BROADCAST, SCATTER_ALLGATHER_BROADCAST, PIPELINED_CHAIN_BROADCAST, RING_ALLGATHER, RECURSIVE_DOUBLING_ALLGATHER,
        RING_REDUCE_SCATTER, RANK_ORDER_REDUCE_SCATTER, BINOMIAL_REDUCE, RANK_ORDER_REDUCE, FLAT_GATHER,
        FLAT_SCATTER, PAIRWISE_ALL_TO_ALL, RECURSIVE_DOUBLING_SCAN, LINEAR_SCAN, DISSEMINATION_BARRIER;

        /** The algorithm; the pipelined ring cuts segments of {@code segmentElements}. */
        public Algorithm algorithm(long segmentElements) {
            return switch (this) {
                case RING_ALLREDUCE -> RingAllReduce.plain();
                case RECURSIVE_DOUBLING_ALLREDUCE -> new RecursiveDoublingAllReduce();
                case HALVING_DOUBLING_ALLREDUCE -> new HalvingDoublingAllReduce();
                case PIPELINED_RING_ALLREDUCE -> RingAllReduce.pipelined(segmentElements);
                case RANK_ORDER_ALLREDUCE -> RankOrder.allReduce();
                case BINOMIAL_BROADCAST -> new BinomialBroadcast();
                case SCATTER_ALLGATHER_BROADCAST -> new ScatterAllGatherBroadcast();
                case PIPELINED_CHAIN_BROADCAST -> new PipelinedChainBroadcast(segmentElements);
                case RING_ALLGATHER -> new RingAllGather();
                case RECURSIVE_DOUBLING_ALLGATHER -> new RecursiveDoublingAllGather();
                case RING_REDUCE_SCATTER -> new RingReduceScatter();
                case RANK_ORDER_REDUCE_SCATTER -> RankOrder.reduceScatter();
                case BINOMIAL_REDUCE -> new BinomialReduce();
                case RANK_ORDER_REDUCE -> RankOrder.reduce();
                case FLAT_GATHER -> FlatRooted.gather();
                case FLAT_SCATTER -> FlatRooted.scatter();
                case PAIRWISE_ALL_TO_ALL -> new PairwiseAllToAll();
                case RECURSIVE_DOUBLING_SCAN -> Scans.recursiveDoubling();
                case LINEAR_SCAN -> Scans.linear();
                case DISSEMINATION_BARRIER -> new DisseminationBarrier();
            };
        }
    }

    /** The algorithm for {@code spec} on a communicator of {@code size}. */
    public Algo select(OpSpec spec, int size) {
        boolean det = config.collectiveDeterministic();
        long w = spec.type().byteSize();
        Operation op = spec.operation();
        return switch (op) {
            case ALL_REDUCE -> {
                long bytes = spec.count() * w;
                if (det) {
                    yield Algo.RANK_ORDER_ALLREDUCE;
                }
                yield switch (config.allReduceAlgorithm()) {
                    case RING -> Algo.RING_ALLREDUCE;
                    case RECURSIVE_DOUBLING -> Algo.RECURSIVE_DOUBLING_ALLREDUCE;
                    case HALVING_DOUBLING -> Algo.HALVING_DOUBLING_ALLREDUCE;
                    case PIPELINED_RING -> Algo.PIPELINED_RING_ALLREDUCE;
                    case RANK_ORDER -> Algo.RANK_ORDER_ALLREDUCE;
                    case AUTO -> bytes <= Math.min(RECURSIVE_DOUBLING_MAX_BYTES, config.allReduceSmallBytes())
                            ? Algo.RECURSIVE_DOUBLING_ALLREDUCE
                            : bytes <= config.allReduceSmallBytes() ? Algo.HALVING_DOUBLING_ALLREDUCE
                            : bytes >= config.allReduceLargeBytes() ? Algo.PIPELINED_RING_ALLREDUCE
                            : Algo.RING_ALLREDUCE; // see the class comment on allreduce.large.size
                };
            }
            case BROADCAST -> switch (config.broadcastAlgorithm()) {
                case BINOMIAL -> Algo.BINOMIAL_BROADCAST;
                case SCATTER_ALLGATHER -> Algo.SCATTER_ALLGATHER_BROADCAST;
                case PIPELINED_CHAIN -> Algo.PIPELINED_CHAIN_BROADCAST;
                case AUTO -> spec.count() * w >= config.broadcastLargeBytes() && size > 2
                        ? Algo.PIPELINED_CHAIN_BROADCAST : Algo.BINOMIAL_BROADCAST;
            };
            case ALL_GATHER -> switch (config.allGatherAlgorithm()) {
                case RING -> Algo.RING_ALLGATHER;
                case RECURSIVE_DOUBLING -> Algo.RECURSIVE_DOUBLING_ALLGATHER;
                case AUTO -> spec.blockOffset(size) * w <= config.allGatherSmallBytes()
                        ? Algo.RECURSIVE_DOUBLING_ALLGATHER : Algo.RING_ALLGATHER;
            };
            case REDUCE_SCATTER -> det ? Algo.RANK_ORDER_REDUCE_SCATTER : Algo.RING_REDUCE_SCATTER;
            case REDUCE -> det ? Algo.RANK_ORDER_REDUCE : Algo.BINOMIAL_REDUCE;
            case GATHER -> Algo.FLAT_GATHER;
            case SCATTER -> Algo.FLAT_SCATTER;
            case ALL_TO_ALL -> Algo.PAIRWISE_ALL_TO_ALL;
            case SCAN, EXCLUSIVE_SCAN -> det ? Algo.LINEAR_SCAN : Algo.RECURSIVE_DOUBLING_SCAN;
            case BARRIER -> Algo.DISSEMINATION_BARRIER;
            default -> throw new IllegalArgumentException(op + " is not a collective");
        };
    }

    /** The schedule of {@code rank} for {@code spec}. */
    public Schedule plan(int rank, int size, OpSpec spec) {
        long segment = Math.max(1, config.pipelineSegmentBytes() / spec.type().byteSize());
        return select(spec, size).algorithm(segment).plan(rank, size, spec);
    }
}
