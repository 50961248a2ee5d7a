package io.nexar.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A connection to a peer was set up (its duration: the setup) or lost. */
@Name("io.nexar.Connection")
@Label("Connection")
@Category("nexar")
@Description("A connection to a peer was set up (the event lasts as long as the setup) or lost")
@StackTrace(false)
public final class ConnectionEvent extends Event {
    @Label("Peer")
    @Description("World rank of the peer")
    public int peer;
    @Label("Lane")
    public String lane;
    @Label("State")
    @Description("established or lost")
    public String state;
    @Label("Detail")
    public String detail;
}
