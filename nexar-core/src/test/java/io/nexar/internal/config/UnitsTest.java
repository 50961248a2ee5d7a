package io.nexar.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Parsing and formatting of durations and sizes. Property tests are seeded by jqwik, which prints the seed of every
 * run in its report (rerun a failure with {@code @Property(seed = "...")}). jqwik does not honour JUnit's
 * {@code @Timeout} (it warns about it, even on the class), so only the JUnit tests carry one; the properties are
 * bounded by their {@code tries}.
 */
class UnitsTest {

    @ParameterizedTest
    @Timeout(10)
    @CsvSource({
        "0s, 0", "1ns, 1", "500ms, 500000000", "30s, 30000000000", "2m, 120000000000", "1h, 3600000000000",
        "7us, 7000", "'  30s ', 30000000000", "30 s, 30000000000", "30S, 30000000000", "5Ms, 5000000",
        "007s, 7000000000", "2562047h, 9223369200000000000"
    })
    void shouldParseDurationsWithEveryUnit(String text, long nanos) {
        assertThat(Units.parseDuration(text)).isEqualTo(Duration.ofNanos(nanos));
    }

    @ParameterizedTest
    @Timeout(10)
    @ValueSource(strings = {"30x", "", " ", "s", "-5s", "+5s", "1.5s", "1e3ms", "1_000ms", "5 m s", "5sec", "٣s"})
    void shouldRejectMalformedDurations(String text) {
        assertThatThrownBy(() -> Units.parseDuration(text))
                .isInstanceOfSatisfying(ValueFormatException.class, e -> {
                    assertThat(e.expected()).isEqualTo("a duration such as 500ms or 30s");
                    assertThat(e.tooLarge()).isFalse();
                })
                .hasMessage("\"" + text + "\": expected a duration such as 500ms or 30s");
    }

    @Test
    @Timeout(10)
    void shouldRejectDurationWithoutUnitSayingTheUnitIsRequired() {
        assertThatThrownBy(() -> Units.parseDuration("30"))
                .hasMessage("\"30\": expected a duration such as 500ms or 30s; "
                        + "a unit is required (ns, us, ms, s, m, h)");
    }

    @ParameterizedTest
    @Timeout(10)
    @ValueSource(strings = {"2562048h", "9223372036854775807ns", "9223372036854775808ns", "99999999999999999999s",
        "153722868m"})
    void shouldRejectDurationsTooLongForLongNanosInsteadOfWrapping(String text) {
        assertThatThrownBy(() -> Units.parseDuration(text))
                .isInstanceOfSatisfying(ValueFormatException.class, e -> assertThat(e.tooLarge()).isTrue())
                .hasMessage("\"" + text + "\": expected a duration of at most 2562047h");
    }

    @ParameterizedTest
    @Timeout(10)
    @CsvSource({
        "0, 0", "4096, 4096", "0B, 0", "1B, 1", "1KiB, 1024", "16MiB, 16777216", "1GiB, 1073741824",
        "2TiB, 2199023255552", "1KB, 1000", "10MB, 10000000", "3GB, 3000000000", "1TB, 1000000000000",
        "16mib, 16777216", "16 MiB, 16777216", "' 64kib ', 65536", "8388607TiB, 9223370937343148032"
    })
    void shouldParseSizesWithEveryUnit(String text, long bytes) {
        assertThat(Units.parseSize(text)).isEqualTo(bytes);
    }

    @ParameterizedTest
    @Timeout(10)
    @ValueSource(strings = {
        "16XB", "", "MiB", "-1", "-1KiB", "1.5MiB", "1e6", "1_000", "16 Mi B", "16M", "16k", "1Kb2"
    })
    void shouldRejectMalformedSizes(String text) {
        assertThatThrownBy(() -> Units.parseSize(text))
                .isInstanceOfSatisfying(ValueFormatException.class, e -> assertThat(e.tooLarge()).isFalse())
                .hasMessage("\"" + text + "\": expected a size such as 64KiB or 16MiB");
    }

    @ParameterizedTest
    @Timeout(10)
    @ValueSource(strings = {"8388608TiB", "9223372036854775807", "9223372036854775808", "99999999999999999999TiB",
        "9223372036855TB"})
    void shouldRejectSizesTooLargeInsteadOfWrapping(String text) {
        assertThatThrownBy(() -> Units.parseSize(text))
                .isInstanceOfSatisfying(ValueFormatException.class, e -> assertThat(e.tooLarge()).isTrue())
                .hasMessage("\"" + text + "\": expected a size of at most 8388607TiB");
    }

    @ParameterizedTest
    @Timeout(10)
    @CsvSource({
        "0, 0s", "1, 1ns", "1000, 1us", "1500, 1500ns", "500000000, 500ms", "1500000000, 1500ms",
        "30000000000, 30s", "90000000000, 90s", "120000000000, 2m", "3600000000000, 1h", "5400000000000, 90m",
        "-30000000000, -30s"
    })
    void shouldFormatDurationsInTheLargestExactUnit(long nanos, String text) {
        assertThat(Units.formatDuration(Duration.ofNanos(nanos))).isEqualTo(text);
    }

    @Test
    @Timeout(10)
    void shouldFormatDurationsBeyondLongNanos() {
        assertThat(Units.formatDuration(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo("9223372036854775807s");
        assertThat(Units.formatDuration(Duration.ofSeconds(Long.MAX_VALUE, 1)))
                .isEqualTo("9223372036854775807000000001ns");
        assertThat(Units.formatDuration(Duration.ofHours(3_000_000))).isEqualTo("3000000h");
    }

    @ParameterizedTest
    @Timeout(10)
    @CsvSource({
        "0, 0B", "1, 1B", "1000, 1000B", "1024, 1KiB", "1536, 1536B", "65536, 64KiB", "16777216, 16MiB",
        "16777152, 16777152B", "1073741824, 1GiB", "1099511627776, 1TiB", "4611686018427387904, 4194304TiB",
        "9223372036854775807, 9223372036854775807B", "-1024, -1KiB"
    })
    void shouldFormatSizesInTheLargestExactBinaryUnit(long bytes, String text) {
        assertThat(Units.formatSize(bytes)).isEqualTo(text);
    }

    @Test
    @Timeout(10)
    void shouldFormatTheLimitsInTheirOwnSyntax() {
        assertThat(Units.formatDuration(Units.MAX_DURATION)).isEqualTo("2562047h");
        assertThat(Units.formatSize(Units.MAX_SIZE_BYTES)).isEqualTo("8388607TiB");
    }

    @Property(tries = 1000)
    void durationSurvivesFormatThenParse(@ForAll("durations") Duration d) {
        assertThat(Units.parseDuration(Units.formatDuration(d))).isEqualTo(d);
    }

    @Property(tries = 1000)
    void sizeSurvivesFormatThenParse(@ForAll("sizes") long bytes) {
        assertThat(Units.parseSize(Units.formatSize(bytes))).isEqualTo(bytes);
    }

    @Property(tries = 1000)
    void formattedParsedDurationIsStable(@ForAll("durationTexts") String text) {
        String once = Units.formatDuration(Units.parseDuration(text));
        assertThat(Units.formatDuration(Units.parseDuration(once))).isEqualTo(once);
        assertThat(Units.parseDuration(once)).isEqualTo(Units.parseDuration(text));
        assertThat(once.length()).isLessThanOrEqualTo(text.strip().length());
    }

    @Property(tries = 1000)
    void formattedParsedSizeIsStable(@ForAll("sizeTexts") String text) {
        String once = Units.formatSize(Units.parseSize(text));
        assertThat(Units.formatSize(Units.parseSize(once))).isEqualTo(once);
        assertThat(Units.parseSize(once)).isEqualTo(Units.parseSize(text));
    }

    @Provide
    Arbitrary<Duration> durations() {
        // mix raw nanos with round values in each unit, which random longs would almost never hit
        var unit = Arbitraries.of(1L, 1_000L, 1_000_000L, 1_000_000_000L, 60_000_000_000L, 3_600_000_000_000L);
        var round = unit.flatMap(u -> Arbitraries.longs().between(0, Units.MAX_DURATION.toNanos() / u)
                .map(n -> Duration.ofNanos(n * u)));
        return Arbitraries.oneOf(round, Arbitraries.longs().between(0, Units.MAX_DURATION.toNanos())
                .map(Duration::ofNanos));
    }

    @Provide
    Arbitrary<Long> sizes() {
        var unit = Arbitraries.of(1L, 1L << 10, 1L << 20, 1L << 30, 1L << 40, 1_000L, 1_000_000L);
        var round = unit.flatMap(u -> Arbitraries.longs().between(0, Units.MAX_SIZE_BYTES / u).map(n -> n * u));
        return Arbitraries.oneOf(round, Arbitraries.longs().between(0, Units.MAX_SIZE_BYTES));
    }

    @Provide
    Arbitrary<String> durationTexts() {
        var unit = Arbitraries.of("ns", "us", "ms", "s", "m", "h", "MS", "H");
        return unit.flatMap(u -> Arbitraries.longs().between(0, 2_562_047).map(n -> n + u));
    }

    @Provide
    Arbitrary<String> sizeTexts() {
        var unit = Arbitraries.of("", "B", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB", "mib");
        return unit.flatMap(u -> Arbitraries.longs().between(0, 8_388_607).map(n -> n + u));
    }

    /** Issue 18 item 5: durations in messages read {@code 60s}, {@code 1.5s}, {@code 200ms}, never {@code PT59.99S}. */
    @ParameterizedTest
    @Timeout(10)
    @CsvSource({
        "0, 0s", "999, 999ns", "1500, 2us", "200000000, 200ms", "999600000, 1s", "1000000000, 1s",
        "1500000000, 1.5s", "59990000000, 60s", "12340000000, 12.3s", "60000000000, 60s", "90000000000, 90s",
        "120400000000, 120s", "600000000000, 10m", "1800000000000, 30m", "7200000000000, 2h", "-1500000000, -1.5s"
    })
    void shouldFormatDurationsRoundedForPeople(long nanos, String text) {
        assertThat(Units.formatRounded(Duration.ofNanos(nanos))).isEqualTo(text);
    }
}
