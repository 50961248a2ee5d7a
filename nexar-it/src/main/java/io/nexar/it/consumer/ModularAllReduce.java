package io.nexar.it.consumer;

import io.nexar.Communicator;
import io.nexar.Nexar;
import io.nexar.ReduceOp;
import java.lang.module.ModuleDescriptor;
import java.util.stream.Collectors;

/**
 * Joins the cluster of the environment ({@code NEXAR_JOIN}, {@code NEXAR_RANK}), all-reduces {@code rank + 1} and
 * prints, for the test to check: the modules it runs in, the packages {@code io.nexar} and the transport export to
 * everyone, then {@code sum=S}. Exits with 0 only if the sum is right.
 */
public final class ModularAllReduce {
    private ModularAllReduce() {
    }

    public static void main(String[] args) {
        Module nexar = Communicator.class.getModule();
        Module transport = Nexar.transports().getFirst().getClass().getModule();
        System.out.println("modules app=" + ModularAllReduce.class.getModule().getName() + " nexar=" + nexar.getName()
                + " transport=" + transport.getName());
        System.out.println("exports " + nexar.getName() + "=" + publicExports(nexar));
        System.out.println("exports " + transport.getName() + "=" + publicExports(transport));
        try (Communicator world = Nexar.join()) {
            long[] value = {world.rank() + 1};
            world.allReduce(value, ReduceOp.SUM);
            long expected = (long) world.worldSize() * (world.worldSize() + 1) / 2;
            System.out.println("rank=" + world.rank() + " size=" + world.worldSize() + " sum=" + value[0]);
            if (value[0] != expected) {
                System.out.println("MISMATCH expected sum=" + expected);
                System.exit(1);
            }
        }
    }

    /** The packages {@code module} exports to every module, sorted and comma-separated; "unnamed" for the class path. */
    private static String publicExports(Module module) {
        ModuleDescriptor descriptor = module.getDescriptor();
        if (descriptor == null) {
            return "unnamed";
        }
        return descriptor.exports().stream().filter(e -> !e.isQualified()).map(ModuleDescriptor.Exports::source)
                .sorted().collect(Collectors.joining(","));
    }
}
