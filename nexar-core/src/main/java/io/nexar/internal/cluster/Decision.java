package io.nexar.internal.cluster;

import io.nexar.MembershipEvent;
import io.nexar.internal.collective.Group;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * What an agreement decided for one communicator.
 *
 * @param oldGroup the communicator that was shrunk
 * @param group the survivors' communicator (this process's rank in it)
 * @param failedWorldRanks the world ranks removed, sorted
 * @param generation recoveries in the lineage so far, this one included
 */
public record Decision(Group oldGroup, Group group, int[] failedWorldRanks, int generation) {

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
