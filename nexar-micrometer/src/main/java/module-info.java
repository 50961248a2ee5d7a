/**
 * Optional metrics for nexar: {@link io.nexar.micrometer.NexarMetrics} streams nexar's JDK Flight Recorder events
 * in-process and records them into a Micrometer {@code MeterRegistry} (docs/observability.md). It reads the events
 * by their JFR names, so it needs none of nexar-core's internal packages.
 */
module io.nexar.micrometer {
    requires io.nexar;
    requires jdk.jfr;
    requires transitive micrometer.core;

    exports io.nexar.micrometer;
}
