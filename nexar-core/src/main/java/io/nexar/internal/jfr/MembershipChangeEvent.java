package io.nexar.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A recovery (shrink, automatic rebuild) or a growth of a communicator, from its start to its end. */
@Name("io.nexar.Membership")
@Label("Membership Change")
@Category("nexar")
@Description("A recovery or a growth of a communicator, from its start to its end")
@StackTrace(false)
public final class MembershipChangeEvent extends Event {
    @Label("Kind")
    @Description("shrink, recovery or grow")
    public String kind;
    @Label("Communicator")
    public int communicator;
    @Label("Detail")
    public String detail;
}
