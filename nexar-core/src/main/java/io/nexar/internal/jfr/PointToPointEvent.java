package io.nexar.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/** One blocking send or recv on this rank, from its call to its return. */
@Name("io.nexar.PointToPoint")
@Label("Point-to-Point")
@Category("nexar")
@Description("One blocking send or recv on this rank, from its call to its return")
@StackTrace(false)
@Threshold("1 ms") // an always-on recording keeps the slow ones; nexar bench --jfr records every one
public final class PointToPointEvent extends Event {
    @Label("Operation")
    public String operation;
    @Label("Communicator")
    public int communicator;
    @Label("Rank")
    public int rank;
    @Label("Peer")
    @Description("The destination of a send, the source of a recv (communicator rank)")
    public int peer;
    @Label("Tag")
    public int tag;
    @Label("Bytes")
    @DataAmount
    public long bytes;
    @Label("Outcome")
    public String outcome;
}
