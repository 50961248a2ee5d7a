package io.nexar.internal.comm;

import io.nexar.NexarConfig;
import io.nexar.internal.cluster.Membership;
import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.rpc.RpcEngine;
import io.nexar.internal.transport.Transport;

/**
 * The parts of one process that all its communicators share: the world communicator makes them, its
 * sub-communicators reuse them.
 *
 * @param transport the process's transport
 * @param mailbox the point-to-point receive side
 * @param engine the collective receive side; null for a point-to-point-only communicator built by hand
 * @param rpcEngine the RPC receive side; null when built by hand without one (no RPC)
 * @param config the process's configuration
 * @param membership the membership service; null when built by hand without one (no shrink, grow, events, policy)
 */
record Shared(Transport transport, Mailbox mailbox, CollectiveEngine engine, RpcEngine rpcEngine, NexarConfig config,
              Membership membership) {
}
