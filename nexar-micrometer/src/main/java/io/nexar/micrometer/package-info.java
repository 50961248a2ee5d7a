/**
 * Micrometer binding of nexar's JFR events: {@link io.nexar.micrometer.NexarMetrics#bindTo}.
 */
package io.nexar.micrometer;
