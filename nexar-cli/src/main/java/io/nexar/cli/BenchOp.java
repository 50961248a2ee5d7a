package io.nexar.cli;

import io.nexar.ConfigKey;
import io.nexar.Operation;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The operations {@code nexar bench} measures, with nccl-tests' conventions for what "size" means and how bus
 * bandwidth is derived from algorithm bandwidth ({@code busbw = algbw * busFactor(n)}).
 *
 * <pre>
 * op             size S is                      per-rank input   per-rank output   busbw factor
 * allreduce      the buffer                     S                S                 2(n-1)/n
 * broadcast      the buffer (root 0)            S (in place)     S                 1
 * reduce         the buffer (root 0)            S                S (root)          1
 * allgather      the gathered output            S/n              S                 (n-1)/n
 * reducescatter  the input                      S                S/n               (n-1)/n
 * alltoall       the input (S/n to each rank)   S                S                 (n-1)/n
 * barrier        0                              -                -                 0
 * sendrecv       one message (to rank+1)        S                S (from rank-1)   1
 * allreduce-compressed  the buffer (in place)   S                S                 2(n-1)/n (as allreduce)
 * </pre>
 *
 * <p>{@code allreduce-compressed} (not part of {@code --op all}) runs {@code allReduceCompressed} with the compressor of
 * {@code --compressor} and one residual per size, carried from call to call (error feedback, as a trainer does); its
 * busbw is what a dense allreduce would need to reach that time, so the two compare directly. Its rows also report
 * the payload bytes each rank sends per call against a dense allreduce of the same size.
 */
enum BenchOp {
    /** Allreduce, out of place. */
    ALLREDUCE(Operation.ALL_REDUCE, 1, true, ConfigKey.ALLREDUCE_ALGORITHM),
    /** Broadcast from root 0. */
    BROADCAST(Operation.BROADCAST, 1, false, ConfigKey.BROADCAST_ALGORITHM),
    /** Reduce to root 0, out of place. */
    REDUCE(Operation.REDUCE, 1, true, null),
    /** Allgather; the size is the gathered output. */
    ALLGATHER(Operation.ALL_GATHER, -1, false, ConfigKey.ALLGATHER_ALGORITHM),
    /** Reduce-scatter; the size is the input. */
    REDUCESCATTER(Operation.REDUCE_SCATTER, -1, true, null),
    /** All-to-all; the size is the input, one block per rank. */
    ALLTOALL(Operation.ALL_TO_ALL, -1, false, null),
    /** Barrier; no data. */
    BARRIER(Operation.BARRIER, 0, false, null),
    /** Every rank sends to rank + 1 and receives from rank - 1 at the same time (nccl-tests' sendrecv). */
    SENDRECV(null, 1, false, null),
    /** Compressed allreduce with error feedback, in place ({@code --compressor}); not part of {@code --op all}. */
    ALLREDUCE_COMPRESSED(Operation.ALL_REDUCE, 1, true, null);

    private final Operation operation;
    private final int blocks;
    private final boolean reduces;
    private final ConfigKey algorithmKey;

    /**
     * @param blocks how many equal blocks a size is cut into: 1, or -1 for one block per rank, or 0 for no data
     */
    BenchOp(Operation operation, int blocks, boolean reduces, ConfigKey algorithmKey) {
        this.operation = operation;
        this.blocks = blocks;
        this.reduces = reduces;
        this.algorithmKey = algorithmKey;
    }

    /** The name on the command line and in the output, for example {@code reducescatter}. */
    String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The collective, or null for {@link #SENDRECV}. */
    Operation operation() {
        return operation;
    }

    /** True if the operation applies a reduce operator. */
    boolean reduces() {
        return reduces;
    }

    /** The key that forces this operation's algorithm ({@code --algo}), or null if it has only one. */
    ConfigKey algorithmKey() {
        return algorithmKey;
    }

    /** Number of equal blocks a size is cut into on {@code worldSize} ranks (0 for barrier). */
    int blocks(int worldSize) {
        return blocks < 0 ? worldSize : blocks;
    }

    /** nccl-tests' bus bandwidth factor on {@code n} ranks. */
    double busFactor(int n) {
        return switch (this) {
            case ALLREDUCE, ALLREDUCE_COMPRESSED -> 2.0 * (n - 1) / n;
            case ALLGATHER, REDUCESCATTER, ALLTOALL -> (double) (n - 1) / n;
            case BROADCAST, REDUCE, SENDRECV -> 1.0;
            case BARRIER -> 0.0;
        };
    }

    /** Parses a name as given to {@code --op}; throws naming the choices. */
    static BenchOp parse(String name) {
        for (BenchOp op : values()) {
            if (op.cliName().equalsIgnoreCase(name.strip())) {
                return op;
            }
        }
        throw new IllegalArgumentException("unknown --op '" + name + "': expected one of " + choices() + " or all");
    }

    /** The names, comma-separated. */
    static String choices() {
        return Arrays.stream(values()).map(BenchOp::cliName).collect(Collectors.joining(", "));
    }
}
