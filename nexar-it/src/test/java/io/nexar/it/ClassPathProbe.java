package io.nexar.it;

import io.nexar.Communicator;
import io.nexar.Nexar;
import io.nexar.ReduceOp;
import java.nio.file.Path;
import java.util.List;

/**
 * The program {@link CliJarIT} launches with the packaged command: joins, all-reduces {@code rank + 1}, and prints the
 * jar each of a few classes was loaded from ({@code source CLASS FILE}), so the test can check that the program's
 * class path holds nexar's modules and their dependencies as plain jars.
 */
public final class ClassPathProbe {
    /** Classes of nexar, Netty, BouncyCastle and SLF4J, whose jars the test checks. */
    static final List<String> CLASSES = List.of("io.nexar.Nexar", "io.netty.channel.Channel",
            "org.bouncycastle.asn1.ASN1Object", "org.slf4j.LoggerFactory");

    private ClassPathProbe() {
    }

    /**
     * Runs one rank.
     *
     * @param args none
     * @throws Exception if a class is missing or the collective fails (the rank then exits non-zero)
     */
    public static void main(String[] args) throws Exception {
        try (Communicator c = Nexar.join()) {
            long[] x = {c.rank() + 1};
            c.allReduce(x, ReduceOp.SUM);
            System.out.println("rank=" + c.rank() + " sum=" + x[0]);
            for (String name : CLASSES) {
                var location = Class.forName(name).getProtectionDomain().getCodeSource().getLocation();
                System.out.println("source " + name + " " + Path.of(location.toURI()).getFileName());
            }
        }
    }
}
