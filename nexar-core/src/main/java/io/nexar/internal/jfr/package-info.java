/**
 * JDK Flight Recorder events of nexar (category "nexar"): collectives, point-to-point operations, peer failures,
 * membership changes and connections. When no recording enables them they cost a disabled-event check: the event
 * objects are scalar-replaced by the JIT and nothing is allocated (docs/failure-model.md "JFR events"). Record with
 * {@code -XX:StartFlightRecording} or {@code nexar bench --jfr FILE}; open the file in JDK Mission Control or print
 * it with {@code jfr print --categories nexar FILE}.
 */
package io.nexar.internal.jfr;
