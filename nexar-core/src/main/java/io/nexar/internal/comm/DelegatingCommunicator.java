package io.nexar.internal.comm;

import io.nexar.CollectiveHandle;
import io.nexar.Communicator;
import io.nexar.DataType;
import io.nexar.Growth;
import io.nexar.MembershipEvent;
import io.nexar.MembershipWatch;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
import io.nexar.PointToPointHandle;
import io.nexar.ReduceOp;
import io.nexar.Status;
import io.nexar.device.DeviceBuffer;
import io.nexar.internal.util.Checks;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Every call of {@link Communicator} that one of a communicator's layers answers, delegated in this one place:
 * point-to-point to {@link PointToPoint}, collectives to the current view's collectives through {@link Recovery#run}
 * (blocking) and {@link Recovery#async}, {@code grow} to {@link Elastic}, {@code watch} and the communicator's
 * numbering to {@link Recovery}. Each method is one final call (sealed: {@link TransportCommunicator} is the only
 * subclass, which builds the layers).
 */
abstract sealed class DelegatingCommunicator implements Communicator permits TransportCommunicator {
    /** The current view, rebuilds announced once, closed and aborted. */
    final Recovery recovery;
    final PointToPoint p2p;
    final Elastic elastic;

    DelegatingCommunicator(Recovery recovery, PointToPoint p2p, Elastic elastic) {
        this.recovery = recovery;
        this.p2p = p2p;
        this.elastic = elastic;
    }

    @Override
    public int rank() {
        return recovery.view().group().rank();
    }

    @Override
    public int worldSize() {
        return recovery.view().group().size();
    }

    @Override
    public int id() {
        return recovery.view().group().id();
    }

    // ------------------------------------------------------------------------------------------------ point-to-point

    @Override
    public void send(int dest, int tag, MemorySegment data) {
        p2p.send(dest, tag, data);
    }

    @Override
    public void send(int dest, int tag, float[] data) {
        p2p.sendArray(dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)), ValueLayout.JAVA_FLOAT);
    }

    @Override
    public void send(int dest, int tag, double[] data) {
        p2p.sendArray(dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)), ValueLayout.JAVA_DOUBLE);
    }

    @Override
    public void send(int dest, int tag, int[] data) {
        p2p.sendArray(dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)), ValueLayout.JAVA_INT);
    }

    @Override
    public void send(int dest, int tag, long[] data) {
        p2p.sendArray(dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)), ValueLayout.JAVA_LONG);
    }

    @Override
    public void send(int dest, int tag, byte[] data) {
        p2p.send(dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)));
    }

    @Override
    public void send(int dest, int tag, DeviceBuffer data) {
        Checks.notNull("data", data);
        p2p.send(dest, tag, data.adapter().stageForSend(data));
    }

    @Override
    public long recv(int src, int tag, MemorySegment buffer) {
        return p2p.recvStatus(src, tag, buffer).byteSize();
    }

    @Override
    public int recv(int src, int tag, float[] buffer) {
        return p2p.recvTyped(src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)), ValueLayout.JAVA_FLOAT);
    }

    @Override
    public int recv(int src, int tag, double[] buffer) {
        return p2p.recvTyped(src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)),
                ValueLayout.JAVA_DOUBLE);
    }

    @Override
    public int recv(int src, int tag, int[] buffer) {
        return p2p.recvTyped(src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)), ValueLayout.JAVA_INT);
    }

    @Override
    public int recv(int src, int tag, long[] buffer) {
        return p2p.recvTyped(src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)), ValueLayout.JAVA_LONG);
    }

    @Override
    public int recv(int src, int tag, byte[] buffer) {
        return (int) recv(src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)));
    }

    @Override
    public long recv(int src, int tag, DeviceBuffer buffer) {
        Checks.notNull("buffer", buffer);
        var adapter = buffer.adapter();
        MemorySegment staging = adapter.receiveStaging(buffer);
        long n = recv(src, tag, staging);
        adapter.receiveToDevice(staging.asSlice(0, n), buffer);
        return n;
    }

    @Override
    public PointToPointHandle isend(int dest, int tag, MemorySegment data) {
        return p2p.isend(dest, tag, data);
    }

    @Override
    public PointToPointHandle irecv(int src, int tag, MemorySegment buffer) {
        return p2p.irecv(src, tag, buffer);
    }

    @Override
    public Status recvStatus(int src, int tag, MemorySegment buffer) {
        return p2p.recvStatus(src, tag, buffer);
    }

    @Override
    public Status probe(int src, int tag) {
        return p2p.probe(src, tag, true);
    }

    @Override
    public Optional<Status> iprobe(int src, int tag) {
        return Optional.ofNullable(p2p.probe(src, tag, false));
    }

    @Override
    public Status sendRecv(int dest, int sendTag, MemorySegment sendData, int src, int recvTag,
                           MemorySegment recvBuffer) {
        return p2p.sendRecv(dest, sendTag, sendData, src, recvTag, recvBuffer);
    }

    // ------------------------------------------------------------------------------------------------ membership

    @Override
    public Growth grow(Consumer<Growth> stateTransfer) {
        return elastic.grow(stateTransfer);
    }

    @Override
    public MembershipWatch watch(Consumer<MembershipEvent> listener) {
        return recovery.watch(listener);
    }

    // ------------------------------------------------------------------------------------------------ collectives

    @Override
    public void barrier() {
        recovery.run(Operation.BARRIER, c -> c.barrier());
    }

    @Override
    public CollectiveHandle barrierAsync() {
        return recovery.async(Operation.BARRIER, c -> c.barrierAsync());
    }

    @Override
    public void allReduce(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op) {
        // recovery.run written out: a lambda capturing the arguments was garbage on every call of the commonest call
        View v = recovery.collectiveView(Operation.ALL_REDUCE);
        try {
            v.collectives().allReduce(in, out, type, count, op);
        } catch (PeerFailedException e) {
            throw recovery.afterFailure(e, v.generation());
        }
    }

    @Override
    public CollectiveHandle allReduceAsync(MemorySegment in, MemorySegment out, DataType type, long count,
                                           ReduceOp op) {
        return recovery.async(Operation.ALL_REDUCE, c -> c.allReduceAsync(in, out, type, count, op));
    }

    @Override
    public void allReduce(java.util.List<MemorySegment> buckets, DataType type, ReduceOp op) {
        recovery.run(Operation.ALL_REDUCE, c -> c.allReduce(buckets, type, op));
    }

    @Override
    public CollectiveHandle allReduceAsync(java.util.List<MemorySegment> buckets, DataType type, ReduceOp op) {
        return recovery.async(Operation.ALL_REDUCE, c -> c.allReduceAsync(buckets, type, op));
    }

    @Override
    public void allReduceCompressed(MemorySegment data, DataType type, long count, ReduceOp op,
                                    io.nexar.Compressor compressor, MemorySegment residual) {
        recovery.run(Operation.ALL_REDUCE, c -> c.allReduceCompressed(data, type, count, op, compressor, residual));
    }

    @Override
    public CollectiveHandle allReduceCompressedAsync(MemorySegment data, DataType type, long count, ReduceOp op,
                                                     io.nexar.Compressor compressor, MemorySegment residual) {
        return recovery.async(Operation.ALL_REDUCE,
                c -> c.allReduceCompressedAsync(data, type, count, op, compressor, residual));
    }

    @Override
    public void broadcast(MemorySegment data, DataType type, long count, int root) {
        recovery.run(Operation.BROADCAST, c -> c.broadcast(data, type, count, root));
    }

    @Override
    public CollectiveHandle broadcastAsync(MemorySegment data, DataType type, long count, int root) {
        return recovery.async(Operation.BROADCAST, c -> c.broadcastAsync(data, type, count, root));
    }

    @Override
    public void reduce(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op, int root) {
        recovery.run(Operation.REDUCE, c -> c.reduce(in, out, type, count, op, root));
    }

    @Override
    public CollectiveHandle reduceAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op,
                                        int root) {
        return recovery.async(Operation.REDUCE, c -> c.reduceAsync(in, out, type, count, op, root));
    }

    @Override
    public void allGather(MemorySegment in, MemorySegment out, DataType type, long count) {
        recovery.run(Operation.ALL_GATHER, c -> c.allGather(in, out, type, count));
    }

    @Override
    public CollectiveHandle allGatherAsync(MemorySegment in, MemorySegment out, DataType type, long count) {
        return recovery.async(Operation.ALL_GATHER, c -> c.allGatherAsync(in, out, type, count));
    }

    @Override
    public void allGatherV(MemorySegment in, MemorySegment out, DataType type, long[] counts) {
        recovery.run(Operation.ALL_GATHER, c -> c.allGatherV(in, out, type, counts));
    }

    @Override
    public void reduceScatter(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op) {
        recovery.run(Operation.REDUCE_SCATTER, c -> c.reduceScatter(in, out, type, count, op));
    }

    @Override
    public CollectiveHandle reduceScatterAsync(MemorySegment in, MemorySegment out, DataType type, long count,
                                               ReduceOp op) {
        return recovery.async(Operation.REDUCE_SCATTER, c -> c.reduceScatterAsync(in, out, type, count, op));
    }

    @Override
    public void allToAll(MemorySegment in, MemorySegment out, DataType type, long count) {
        recovery.run(Operation.ALL_TO_ALL, c -> c.allToAll(in, out, type, count));
    }

    @Override
    public void allToAllV(MemorySegment in, long[] sendCounts, MemorySegment out, long[] recvCounts, DataType type) {
        recovery.run(Operation.ALL_TO_ALL, c -> c.allToAllV(in, sendCounts, out, recvCounts, type));
    }

    @Override
    public void gather(MemorySegment in, MemorySegment out, DataType type, long count, int root) {
        recovery.run(Operation.GATHER, c -> c.gather(in, out, type, count, null, root));
    }

    @Override
    public void gatherV(MemorySegment in, MemorySegment out, DataType type, long[] counts, int root) {
        recovery.run(Operation.GATHER, c -> c.gather(in, out, type, -1, counts, root));
    }

    @Override
    public void scatter(MemorySegment in, MemorySegment out, DataType type, long count, int root) {
        recovery.run(Operation.SCATTER, c -> c.scatter(in, out, type, count, null, root));
    }

    @Override
    public void scatterV(MemorySegment in, MemorySegment out, DataType type, long[] counts, int root) {
        recovery.run(Operation.SCATTER, c -> c.scatter(in, out, type, -1, counts, root));
    }

    @Override
    public void scan(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op) {
        recovery.run(Operation.SCAN, c -> c.scan(in, out, type, count, op, false));
    }

    @Override
    public void exclusiveScan(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op) {
        recovery.run(Operation.EXCLUSIVE_SCAN, c -> c.scan(in, out, type, count, op, true));
    }

    @Override
    public CollectiveHandle allGatherVAsync(MemorySegment in, MemorySegment out, DataType type, long[] counts) {
        return recovery.async(Operation.ALL_GATHER, c -> c.allGatherVAsync(in, out, type, counts));
    }

    @Override
    public CollectiveHandle allToAllAsync(MemorySegment in, MemorySegment out, DataType type, long count) {
        return recovery.async(Operation.ALL_TO_ALL, c -> c.allToAllAsync(in, out, type, count));
    }

    @Override
    public CollectiveHandle allToAllVAsync(MemorySegment in, long[] sendCounts, MemorySegment out, long[] recvCounts,
                                           DataType type) {
        return recovery.async(Operation.ALL_TO_ALL, c -> c.allToAllVAsync(in, sendCounts, out, recvCounts, type));
    }

    @Override
    public CollectiveHandle gatherAsync(MemorySegment in, MemorySegment out, DataType type, long count, int root) {
        return recovery.async(Operation.GATHER, c -> c.gatherAsync(in, out, type, count, null, root));
    }

    @Override
    public CollectiveHandle gatherVAsync(MemorySegment in, MemorySegment out, DataType type, long[] counts,
                                         int root) {
        return recovery.async(Operation.GATHER, c -> c.gatherAsync(in, out, type, -1, counts, root));
    }

    @Override
    public CollectiveHandle scatterAsync(MemorySegment in, MemorySegment out, DataType type, long count, int root) {
        return recovery.async(Operation.SCATTER, c -> c.scatterAsync(in, out, type, count, null, root));
    }

    @Override
    public CollectiveHandle scatterVAsync(MemorySegment in, MemorySegment out, DataType type, long[] counts,
                                          int root) {
        return recovery.async(Operation.SCATTER, c -> c.scatterAsync(in, out, type, -1, counts, root));
    }

    @Override
    public CollectiveHandle scanAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op) {
        return recovery.async(Operation.SCAN, c -> c.scanAsync(in, out, type, count, op, false));
    }

    @Override
    public CollectiveHandle exclusiveScanAsync(MemorySegment in, MemorySegment out, DataType type, long count,
                                               ReduceOp op) {
        return recovery.async(Operation.EXCLUSIVE_SCAN, c -> c.scanAsync(in, out, type, count, op, true));
    }

}
