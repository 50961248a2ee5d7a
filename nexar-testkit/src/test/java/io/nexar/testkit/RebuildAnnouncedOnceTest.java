package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.Communicator;
import io.nexar.MembershipEvent;
import io.nexar.NexarConfig;
import io.nexar.PeerFailedException;
import io.nexar.RecoveryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Under recovery policy automatic, a survivor whose own operations all succeeded learns of a rebuild of the world
 * from the first operation it starts afterwards, exactly once, even when many of its threads start one at the same
 * moment.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RebuildAnnouncedOnceTest {
    private static final int THREADS = 16;
    private static final String ANNOUNCEMENT = "rebuilt without a failed rank";

    @Test
    void shouldAnnounceARebuildToExactlyOneOfManyConcurrentCallers() throws Exception {
        var config = NexarConfig.builder().ignoreEnvironment().recoveryPolicy(RecoveryPolicy.AUTOMATIC)
                .collectiveTimeout(Duration.ofSeconds(20)).recoveryTimeout(Duration.ofSeconds(20)).build();
        try (var cluster = LocalCluster.start(3, config)) {
            Communicator c = cluster.communicator(0);
            var rebuilt = new CountDownLatch(1);
            c.watch(e -> {
                if (e instanceof MembershipEvent.Rebuilt) { // emitted after the communicator adopted the new world
                    rebuilt.countDown();
                }
            });
            cluster.crash(2);
            assertThat(rebuilt.await(30, TimeUnit.SECONDS)).as("the survivors rebuilt the world").isTrue();

            var barrier = new CyclicBarrier(THREADS);
            Queue<String> announced = new ConcurrentLinkedQueue<>();
            Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                threads.add(Thread.ofPlatform().name("caller-" + t).start(() -> {
                    try {
                        barrier.await(30, TimeUnit.SECONDS);
                        c.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG); // the first call after the rebuild
                    } catch (PeerFailedException e) {
                        if (e.getMessage().contains(ANNOUNCEMENT)) {
                            announced.add(e.getMessage());
                        } else {
                            unexpected.add(e);
                        }
                    } catch (Throwable e) {
                        unexpected.add(e);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertThat(unexpected).isEmpty();
            assertThat(announced).as("announcements of the rebuild").hasSize(1);
            assertThat(announced.peek()).contains("this rank is now rank 0 of 2");
            assertThat(c.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG)).as("later calls run").isEmpty();
            assertThat(c.worldSize()).isEqualTo(2);
        }
    }
}
