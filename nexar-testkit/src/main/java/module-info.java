/** Test support for nexar: {@link io.nexar.testkit.LocalCluster} runs one body per rank in one JVM. */
module io.nexar.testkit {
    requires transitive io.nexar;

    requires org.junit.jupiter.api;
    requires org.junit.jupiter.params;
    requires org.assertj.core;

    exports io.nexar.testkit;
    exports io.nexar.testkit.contract;
}
