package io.nexar.examples;

import io.nexar.Communicator;
import io.nexar.Nexar;
import io.nexar.RpcException;
import io.nexar.rpc.RpcCall;
import io.nexar.rpc.RpcCodec;
import io.nexar.rpc.RpcMethod;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Every rank registers two remote functions, then calls both on every rank (itself included) and checks every
 * answer: a typed one ({@code SQUARE}: a long in, a long out, with the built-in codecs) and a raw one (bytes in,
 * bytes out). It also calls a function nobody registered, which is answered at once with an {@link RpcException}.
 * Run: {@code ./nexar launch -n 4 io.nexar.examples.Rpc}; exits 0 only if every answer was right.
 */
public final class Rpc {
    /** Function 1: x -> x * x + the callee's rank (so the answer proves who computed it). */
    static final RpcMethod<Long, Long> SQUARE = RpcMethod.of(1, RpcCodec.int64(), RpcCodec.int64());
    /** Function 2: a greeting naming the callee and the caller. */
    static final int GREET = 2;
    /** Nobody registers it. */
    static final int MISSING = 3;

    private Rpc() {
    }

    public static void main(String[] args) {
        try (Communicator world = Nexar.join()) {
            int me = world.rank();
            world.rpc().register(SQUARE, (ctx, x) -> x * x + me);
            world.rpc().register(GREET, (ctx, request) -> {
                String name = new String(request.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                String answer = "rank " + me + " greets rank " + ctx.caller() + ": " + name;
                return MemorySegment.ofArray(answer.getBytes(StandardCharsets.UTF_8));
            });
            world.barrier(); // every rank has registered before anyone calls

            // Calls to every rank at once; the answers are matched to their calls by request id.
            List<RpcCall<Long>> squares = new ArrayList<>();
            for (int peer = 0; peer < world.worldSize(); peer++) {
                squares.add(world.rpc().callAsync(peer, SQUARE, (long) me + 10));
            }
            for (int peer = 0; peer < world.worldSize(); peer++) {
                long got = squares.get(peer).await();
                long expected = (me + 10L) * (me + 10L) + peer;
                check(got == expected, "SQUARE(" + (me + 10) + ") on rank " + peer + " = " + got + ", expected "
                        + expected);
                String greeting = new String(world.rpc().call(peer, GREET, "hello".getBytes(StandardCharsets.UTF_8)),
                        StandardCharsets.UTF_8);
                check(greeting.equals("rank " + peer + " greets rank " + me + ": hello"), "greeting: " + greeting);
                System.out.println("rank " + me + " -> rank " + peer + ": " + got + ", \"" + greeting + "\"");
            }

            int next = (me + 1) % world.worldSize();
            try {
                world.rpc().call(next, MISSING, new byte[0]);
                check(false, "function " + MISSING + " answered although nobody registered it");
            } catch (RpcException e) {
                check(e.reason() == RpcException.Reason.UNKNOWN_FUNCTION, "unexpected failure: " + e);
                System.out.println("rank " + me + ": as expected, " + e.getMessage());
            }
            world.barrier(); // nobody leaves while others may still call it
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("wrong answer: " + what);
        }
    }
}
