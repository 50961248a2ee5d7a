package io.nexar.internal.cluster;

import io.nexar.MembershipEvent;
import io.nexar.internal.collective.Group;
import io.nexar.internal.jfr.MembershipChangeEvent;
import io.nexar.internal.util.LogContext;
import java.util.ArrayList;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an agreement decided for one communicator.
 *
 * @param oldGroup the communicator that was shrunk
 * @param group the survivors' communicator (this process's rank in it)
 * @param failedWorldRanks the world ranks removed, sorted
 * @param generation recoveries in the lineage so far, this one included
 */
public record Decision(Group oldGroup, Group group, int[] failedWorldRanks, int generation) {
    private static final Logger LOG = LoggerFactory.getLogger(Membership.class);

    /** Records the decision as a JFR membership change event and logs it, in the new communicator's log context. */
    void report() {
        var event = new MembershipChangeEvent();
        if (event.shouldCommit()) {
            event.kind = "recovery";
            event.communicator = oldGroup.id();
            event.detail = "rebuilt as communicator " + group.id() + " without world ranks "
                    + Arrays.toString(failedWorldRanks) + " (generation " + generation + ", " + group.size() + " ranks)";
            event.commit();
        }
        try (var mdc = LogContext.scope(group.rank(), group.size(), group.id())) {
            LOG.info("recovery: communicator {} rebuilt as {} without world ranks {} ({} ranks, this one is rank {},"
                    + " generation {})", oldGroup.id(), group.id(), Arrays.toString(failedWorldRanks), group.size(),
                    group.rank(), generation);
        }
    }

    /** The event for listeners: the removed ranks and the old-to-new map in the old communicator's numbering. */
    MembershipEvent.Rebuilt event() {
        var failed = new ArrayList<Integer>();
        var oldToNew = new ArrayList<Integer>();
        for (int r = 0; r < oldGroup.size(); r++) {
            int w = oldGroup.world(r);
            oldToNew.add(group.local(w));
            if (Arrays.binarySearch(failedWorldRanks, w) >= 0) {
                failed.add(r);
            }
        }
        return new MembershipEvent.Rebuilt(oldGroup.id(), group.id(), generation, failed, oldToNew, group.rank(),
                group.size());
    }
}
