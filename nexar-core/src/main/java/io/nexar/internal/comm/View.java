package io.nexar.internal.comm;

import io.nexar.internal.collective.Collectives;
import io.nexar.internal.collective.Group;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The membership one communicator works on now. Immutable; {@link Recovery} replaces it whole when an automatic
 * recovery rebuilds the world or {@code grow()} adds ranks.
 *
 * @param group ranks and id
 * @param generation recoveries and growths that led to this view
 * @param collectives null when built without a collective engine (point-to-point only)
 * @param nextSeq the send order per destination (point-to-point numbering starts again in each view)
 */
record View(Group group, int generation, Collectives collectives, ConcurrentHashMap<Integer, SendOrder> nextSeq) {
}
