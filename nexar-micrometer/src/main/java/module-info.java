/**
 * Optional metrics for nexar: {@link io.nexar.micrometer.NexarMetrics} streams nexar's JDK Flight Recorder events
 * in-process and records them into a Micrometer {@code MeterRegistry} (docs/observability.md). It reads the events
 * by their JFR names, so it needs none of nexar-core's internal packages.
 */
// micrometer-core is an automatic module (Automatic-Module-Name micrometer.core, no module-info): its MeterRegistry is
// in this module's API, so a consumer reads it through this one.
@SuppressWarnings("requires-transitive-automatic")
module io.nexar.micrometer {
    requires io.nexar;
    requires jdk.jfr;
    requires transitive micrometer.core;

    exports io.nexar.micrometer;
}
