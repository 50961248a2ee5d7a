package io.nexar.internal.config;

import java.math.BigInteger;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Parses and formats the two kinds of quantities nexar's configuration takes: durations and sizes. Formatting gives
 * the shortest exact form, which parses back to the same value.
 *
 * <p><b>Durations</b> are a non-negative whole number followed by a unit: {@code ns}, {@code us}, {@code ms},
 * {@code s}, {@code m} (minutes) or {@code h}, for example {@code 500ms} or {@code 30s}. The unit is required: a bare
 * {@code 30} is rejected because it could mean seconds or milliseconds. At most {@link #MAX_DURATION}
 * ({@code 2562047h}, about 292 years, so that every duration fits in a {@code long} of nanoseconds).
 *
 * <p><b>Sizes</b> are a non-negative whole number followed by an optional unit: {@code B}; binary {@code KiB},
 * {@code MiB}, {@code GiB}, {@code TiB} (powers of 1024); or decimal {@code KB}, {@code MB}, {@code GB}, {@code TB}
 * (powers of 1000). A bare number is bytes. At most {@link #MAX_SIZE_BYTES} ({@code 8388607TiB}).
 *
 * <p>Units are case-insensitive. Blanks around the value and between the number and the unit are ignored. Signs,
 * fractions ({@code 1.5s}), exponents and digit separators are rejected. A value too large for its type is rejected,
 * never wrapped.
 */
public final class Units {
    /** The longest duration accepted: {@code 2562047h}, the whole hours that fit in a {@code long} of nanoseconds. */
    public static final Duration MAX_DURATION = Duration.ofHours(2_562_047);

    /** The largest size accepted, in bytes: {@code 8388607TiB}, the whole tebibytes that fit in a {@code long}. */
    public static final long MAX_SIZE_BYTES = 8_388_607L << 40;

    /** What a malformed duration should have looked like, completing "expected ...". */
    private static final String DURATION_EXAMPLE = "a duration such as 500ms or 30s";

    /** What a malformed size should have looked like, completing "expected ...". */
    private static final String SIZE_EXAMPLE = "a size such as 64KiB or 16MiB";

    private static final Pattern QUANTITY = Pattern.compile("\\s*([0-9]+)\\s*([A-Za-z]*)\\s*");
    private static final long MAX_DURATION_NANOS = MAX_DURATION.toNanos();
    private static final BigInteger NANOS_PER_SECOND = BigInteger.valueOf(1_000_000_000L);

    /** Duration units, largest first, so formatting can pick the first that divides exactly. */
    private enum TimeUnit {
        H("h", 3_600_000_000_000L), M("m", 60_000_000_000L), S("s", 1_000_000_000L), MS("ms", 1_000_000L),
        US("us", 1_000L), NS("ns", 1L);

        final String symbol;
        final long nanos;

        TimeUnit(String symbol, long nanos) {
            this.symbol = symbol;
            this.nanos = nanos;
        }
    }

    /** Size units; the binary ones, largest first, are used for formatting. */
    private enum SizeUnit {
        TIB("TiB", 1L << 40), GIB("GiB", 1L << 30), MIB("MiB", 1L << 20), KIB("KiB", 1L << 10), B("B", 1L),
        TB("TB", 1_000_000_000_000L), GB("GB", 1_000_000_000L), MB("MB", 1_000_000L), KB("KB", 1_000L);

        final String symbol;
        final long bytes;

        SizeUnit(String symbol, long bytes) {
            this.symbol = symbol;
            this.bytes = bytes;
        }

        boolean binary() {
            return Long.bitCount(bytes) == 1;
        }
    }

    private Units() {
    }

    /**
     * Parses a duration such as {@code 500ms} or {@code 30s}.
     *
     * @param text the value as written by the user
     * @return the duration, between zero and {@link #MAX_DURATION}
     * @throws ValueFormatException if the text is not a whole number with a duration unit, has no unit, or is longer
     *         than {@link #MAX_DURATION}
     */
    public static Duration parseDuration(String text) {
        var m = QUANTITY.matcher(text);
        if (!m.matches()) {
            throw new ValueFormatException(text, DURATION_EXAMPLE, false);
        }
        if (m.group(2).isEmpty()) {
            throw new ValueFormatException(text, DURATION_EXAMPLE + "; a unit is required (ns, us, ms, s, m, h)",
                    false);
        }
        TimeUnit unit = null;
        for (var u : TimeUnit.values()) {
            if (u.symbol.equalsIgnoreCase(m.group(2))) {
                unit = u;
            }
        }
        if (unit == null) {
            throw new ValueFormatException(text, DURATION_EXAMPLE, false);
        }
        long nanos = scale(m.group(1), unit.nanos);
        if (nanos < 0 || nanos > MAX_DURATION_NANOS) {
            throw new ValueFormatException(text, "a duration of at most " + formatDuration(MAX_DURATION), true);
        }
        return Duration.ofNanos(nanos);
    }

    /**
     * Parses a size such as {@code 64KiB}, {@code 16MiB}, {@code 10MB} or {@code 4096} (bytes).
     *
     * @param text the value as written by the user
     * @return the size in bytes, between zero and {@link #MAX_SIZE_BYTES}
     * @throws ValueFormatException if the text is not a whole number with an optional size unit, or is larger than
     *         {@link #MAX_SIZE_BYTES}
     */
    public static long parseSize(String text) {
        var m = QUANTITY.matcher(text);
        if (!m.matches()) {
            throw new ValueFormatException(text, SIZE_EXAMPLE, false);
        }
        long multiplier = 1;
        if (!m.group(2).isEmpty()) {
            SizeUnit unit = null;
            for (var u : SizeUnit.values()) {
                if (u.symbol.equalsIgnoreCase(m.group(2))) {
                    unit = u;
                }
            }
            if (unit == null) {
                throw new ValueFormatException(text, SIZE_EXAMPLE, false);
            }
            multiplier = unit.bytes;
        }
        long bytes = scale(m.group(1), multiplier);
        if (bytes < 0 || bytes > MAX_SIZE_BYTES) {
            throw new ValueFormatException(text, "a size of at most " + formatSize(MAX_SIZE_BYTES), true);
        }
        return bytes;
    }

    /**
     * Formats a duration in its shortest exact form: the largest unit that divides it, for example {@code 500ms},
     * {@code 30s}, {@code 2m} or {@code 1500us}; zero is {@code 0s}. Any {@link Duration} can be formatted, including
     * negative ones and ones longer than {@link #MAX_DURATION}; the result of a duration in the parseable range
     * parses back to the same duration.
     *
     * @param duration the duration, not null
     * @return the formatted duration
     */
    public static String formatDuration(Duration duration) {
        if (duration.isZero()) {
            return "0s";
        }
        // BigInteger: a Duration can hold more nanoseconds than a long; this is for messages, not a hot path.
        var nanos = BigInteger.valueOf(duration.getSeconds()).multiply(NANOS_PER_SECOND)
                .add(BigInteger.valueOf(duration.getNano()));
        for (var u : TimeUnit.values()) {
            var qr = nanos.divideAndRemainder(BigInteger.valueOf(u.nanos));
            if (qr[1].signum() == 0) {
                return qr[0] + u.symbol;
            }
        }
        throw new AssertionError("1ns divides every duration");
    }

    /**
     * Formats a duration for a person reading a message, rounded to a few digits: zero is {@code 0s}; below 1 s in whole {@code ns},
     * {@code us} or {@code ms} ({@code 200ms}); below 1 min in seconds with at most one decimal ({@code 1.5s},
     * {@code 59.99s} is {@code 60s}); below 10 min in whole seconds ({@code 60s}, {@code 90s}); from then on in
     * whole seconds, or minutes or hours when they divide it ({@code 30m}, {@code 2h}). Never the ISO-8601 form of {@link Duration#toString()} ({@code PT59.99S}). Not
     * meant to be parsed back: configuration values use {@link #formatDuration}.
     *
     * @param duration the duration, not null; a negative one is formatted with a sign
     * @return the rounded duration
     */
    public static String formatRounded(Duration duration) {
        if (duration.isZero()) {
            return "0s";
        }
        if (duration.isNegative()) {
            return "-" + formatRounded(duration.negated());
        }
        long seconds = duration.getSeconds();
        int nanos = duration.getNano();
        if (seconds == 0) {
            if (nanos < 1_000) {
                return nanos + "ns";
            }
            if (nanos < 1_000_000) {
                return Math.round(nanos / 1e3) + "us";
            }
            long millis = Math.round(nanos / 1e6);
            return millis < 1000 ? millis + "ms" : "1s";
        }
        if (seconds < 60) {
            long tenths = Math.round((seconds * 1e9 + nanos) / 1e8);
            return tenths % 10 == 0 ? tenths / 10 + "s" : tenths / 10 + "." + tenths % 10 + "s";
        }
        long whole = seconds + (nanos >= 500_000_000 ? 1 : 0);
        return whole < 600 ? whole + "s" : formatDuration(Duration.ofSeconds(whole));
    }

    /**
     * Formats a size in its shortest exact binary form, for example {@code 16MiB}, {@code 4KiB} or {@code 1000B}
     * when no binary unit divides it; zero is {@code 0B}. Decimal units are never produced. The result of a size in
     * the parseable range parses back to the same size.
     *
     * @param bytes the size in bytes; negative values are formatted with a sign
     * @return the formatted size
     */
    public static String formatSize(long bytes) {
        if (bytes == 0) {
            return "0B";
        }
        for (var u : SizeUnit.values()) {
            if (u.binary() && bytes % u.bytes == 0) {
                return bytes / u.bytes + u.symbol;
            }
        }
        throw new AssertionError("1B divides every size");
    }

    /** {@code digits × multiplier}, or -1 if it does not fit in a long. */
    private static long scale(String digits, long multiplier) {
        try {
            return Math.multiplyExact(Long.parseLong(digits), multiplier);
        } catch (NumberFormatException | ArithmeticException tooLarge) {
            // digits are [0-9]+ by the pattern, so NumberFormatException can only mean overflow
            return -1;
        }
    }
}
