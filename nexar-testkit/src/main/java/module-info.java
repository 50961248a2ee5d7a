/**
 * Test support for nexar: {@link io.nexar.testkit.LocalCluster} runs one body per rank in one JVM. The contract suites
 * of {@code io.nexar.testkit.contract} need JUnit Jupiter and AssertJ, which are optional (static): LocalCluster runs
 * without them.
 */
module io.nexar.testkit {
    requires transitive io.nexar;

    requires static org.junit.jupiter.api;
    requires static org.junit.jupiter.params;
    requires static org.assertj.core;

    exports io.nexar.testkit;
    exports io.nexar.testkit.contract;
}
