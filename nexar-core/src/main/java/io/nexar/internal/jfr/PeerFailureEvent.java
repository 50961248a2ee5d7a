package io.nexar.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** This process learned that a peer failed or left (failure detection, a Goodbye, a lost connection). */
@Name("io.nexar.PeerFailure")
@Label("Peer Failure")
@Category("nexar")
@Description("This process learned that a peer failed or left")
@StackTrace(false)
public final class PeerFailureEvent extends Event {
    @Label("Peer")
    @Description("World rank of the peer")
    public int peer;
    @Label("Reason")
    public String reason;
}
