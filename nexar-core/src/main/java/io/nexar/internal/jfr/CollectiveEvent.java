package io.nexar.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/** One collective operation on this rank, from its call to its end (success or failure). */
@Name("io.nexar.Collective")
@Label("Collective")
@Category("nexar")
@Description("One collective operation on this rank, from its call to its end")
@StackTrace(false)
@Threshold("1 ms") // an always-on recording keeps the slow ones; nexar bench --jfr records every one
public final class CollectiveEvent extends Event {
    @Label("Operation")
    public String operation;
    @Label("Communicator")
    public int communicator;
    @Label("Sequence")
    public long sequence;
    @Label("Rank")
    public int rank;
    @Label("World Size")
    public int worldSize;
    @Label("Element Type")
    public String dataType;
    @Label("Count")
    public long count;
    @Label("Root")
    public int root;
    @Label("Bytes Sent")
    @DataAmount
    public long bytesSent;
    @Label("Outcome")
    @Description("ok, or the exception's class and message")
    public String outcome;
}
