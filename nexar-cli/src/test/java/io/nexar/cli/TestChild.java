package io.nexar.cli;

import java.util.concurrent.CountDownLatch;

/** A child program for launcher tests: {@code ok TEXT}, {@code fail CODE}, or {@code block} (until killed). */
public final class TestChild {
    private TestChild() {
    }

    public static void main(String[] args) throws InterruptedException {
        switch (args[0]) {
            case "ok" -> System.out.println(args[1] + " rank " + System.getenv("NEXAR_RANK"));
            case "fail" -> {
                System.err.println("failing on purpose");
                System.exit(Integer.parseInt(args[1]));
            }
            case "block" -> new CountDownLatch(1).await();
            default -> throw new IllegalArgumentException(args[0]);
        }
    }
}
