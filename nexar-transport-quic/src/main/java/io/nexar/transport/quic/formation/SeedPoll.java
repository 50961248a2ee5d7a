package io.nexar.transport.quic.formation;

import io.nexar.ClusterFormationException;
import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.ProtocolException;
import io.nexar.internal.protocol.EnrolmentCodec;
import io.nexar.internal.protocol.EnrolmentMessage.Admission;
import io.nexar.internal.protocol.EnrolmentMessage.GrowPoll;
import io.nexar.internal.protocol.EnrolmentMessage.JoinChallenge;
import io.nexar.internal.protocol.EnrolmentMessage.JoinRefused;
import io.nexar.internal.protocol.Message;
import io.nexar.transport.quic.security.ClusterCa;
import io.nexar.transport.quic.security.JoinString;
import io.nexar.transport.quic.security.PinnedCaTrustManager;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import javax.net.ssl.SSLSocket;

/**
 * Rank 0's question to the seed at a {@code grow()}: one TLS connection (the seed authenticated by the pinned CA, as
 * for a join), the seed's JOIN_CHALLENGE, a GROW_POLL whose proof covers the nonce and the poll's body, and the
 * seed's ADMISSION (the workers it admitted, possibly none) or JOIN_REFUSED. One attempt, no retry: a seed that is
 * gone (for example {@code nexar seed} without {@code --elastic} exits once the cluster formed) means nobody joins.
 */
public final class SeedPoll {

    private SeedPoll() {
    }

    /**
     * Asks the seed of {@code joinString} to admit up to {@code max} waiting workers into the world of
     * {@code members}, which becomes communicator {@code communicator} at {@code generation}.
     *
     * @return the seed's admission (its newcomers possibly empty)
     * @throws ClusterFormationException if the seed cannot be reached, is not the pinned one, or refuses
     */
    public static Admission admit(String joinString, int max, int communicator, int generation, int[] members,
                                  Duration timeout) {
        JoinString js = JoinString.parse(joinString);
        String seed = js.hostPort();
        // rank 0 of the world communicator polls, on behalf of the members' grow() (the id it asks for is the grown
        // world's, not yet a communicator: none is named)
        var context = new ErrorContext(Operation.GROW, 0, members.length, -1, -1, -1, -1);
        var tm = new PinnedCaTrustManager(js.caFingerprint(), ClusterCa.SEED_MEMBER_ID);
        long millis = Math.max(1, timeout.toMillis());
        try (SSLSocket socket = WorkerEnrolment.open(js, tm, millis)) {
            var in = socket.getInputStream();
            var out = socket.getOutputStream();
            Message first = FrameIo.read(in, -1, EnrolmentCodec.MAX_ENROLMENT_FRAME_BYTES);
            if (!(first instanceof JoinChallenge challenge)) {
                throw failure(context, "seed at " + seed + " sent " + first.type() + ", expected JOIN_CHALLENGE");
            }
            byte[] covered = EnrolmentCodec.pollProofInput(max, communicator, generation, members);
            FrameIo.write(out, new GrowPoll(js.token().proof(challenge.nonce(), covered), max, communicator,
                    generation, members));
            Message answer = FrameIo.read(in, -1, EnrolmentCodec.MAX_ENROLMENT_FRAME_BYTES
                    + EnrolmentCodec.maxPeerTableFrameBytes(max));
            socket.setSoTimeout(1000); // bounds close(), which waits for the seed's close_notify
            return switch (answer) {
                case Admission a when a.communicator() == communicator && a.generation() == generation
                        && Arrays.equals(a.members(), members) && a.newcomers().size() <= max -> a;
                case JoinRefused r -> throw failure(context, "seed at " + seed + " refused to admit waiting workers: "
                        + r.reason() + " (" + r.code() + ")");
                default -> throw failure(context, "seed at " + seed + " answered the grow poll with " + answer);
            };
        } catch (ProtocolException e) {
            throw failure(context, "seed at " + seed + " violated the enrolment protocol: " + e.getMessage());
        } catch (IOException e) {
            String why = tm.failure() != null ? tm.failure().getMessage() : e.toString();
            throw failure(context, "seed at " + seed + " could not be asked for waiting workers: " + why);
        }
    }

    private static ClusterFormationException failure(ErrorContext context, String detail) {
        return new ClusterFormationException(context, "failed: " + detail);
    }
}
