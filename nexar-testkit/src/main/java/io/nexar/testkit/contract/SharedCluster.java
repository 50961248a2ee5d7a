package io.nexar.testkit.contract;

import io.nexar.testkit.RankBody;
import io.nexar.testkit.TestCluster;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The cluster that consecutive cases of one group share, so that a parameterized contract test of hundreds of named
 * cases starts one cluster per group (for example one algorithm and world size), not one per case. JUnit runs a
 * parameterized test's cases in the order of its source, so a group's cases come one after the other. A case that
 * fails closes the cluster (its communicators may be broken), so the next case starts a fresh one and reports its own
 * result; the last case of a group closes it; the test class closes what is left in its {@code @AfterAll}.
 */
final class SharedCluster implements AutoCloseable {
    private final long suiteSeed;
    private Object group;
    private TestCluster cluster;

    /**
     * A holder with no cluster yet.
     *
     * @param suiteSeed the seed the suite derives every case's seed from, named in failure messages
     */
    SharedCluster(long suiteSeed) {
        this.suiteSeed = suiteSeed;
    }

    /** One case of a parameterized contract test: its display name is its {@code toString()}. */
    interface Case {
        /**
         * The cases of one group share a cluster.
         *
         * @return a value whose {@code equals} tells the groups apart
         */
        Object group();

        /**
         * The seed of the case's inputs, named in its failure message.
         *
         * @return the seed
         */
        long seed();

        /**
         * Whether the case is the last of its group, which closes the cluster after it.
         *
         * @return true for the last case of a group
         */
        boolean lastOfGroup();
    }

    /**
     * Runs {@code body} on every rank of the cluster of {@code c}'s group, starting that cluster first if the previous
     * case belonged to another group.
     *
     * @param <T> the type of a body's result
     * @param c the case
     * @param start starts the group's cluster
     * @param body what each rank does
     * @return the body's results by rank
     * @throws AssertionError naming the case and its seed, with the failure as its cause, if a rank failed
     */
    <T> Map<Integer, T> run(Case c, Supplier<TestCluster> start, RankBody<T> body) {
        Map<Integer, T> results;
        try {
            if (!c.group().equals(group)) {
                close();
                cluster = start.get();
                group = c.group();
            }
            results = cluster.onEachRank(body);
        } catch (RuntimeException | Error e) {
            close();
            throw new AssertionError(c + " failed (seed " + c.seed() + ", suite seed " + suiteSeed
                    + ": -Dnexar.test.seed=" + suiteSeed + " repeats it): " + e.getMessage(), e);
        }
        if (c.lastOfGroup()) {
            close();
        }
        return results;
    }

    /** Closes the current cluster, if any. */
    @Override
    public void close() {
        var open = cluster;
        cluster = null;
        group = null;
        if (open != null) {
            open.close();
        }
    }
}
