package pushbench.jmeter;

// JUnit of the engine's sampled trip time (TripSample; docs/engine.md "Sampled trip time"): the nearest-rank
// p99, every k-th message timed with k from the last interval's rate, a burst's timed messages bounded, a
// target's sentUs (engine clock) and a built-in record's created (server clock, ms) as stamps, messages
// without a stamp not timed but using their turn (their reads bounded too), and nothing timed without a rule.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class TripSampleTest {
  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void offer(TripSample t, long arrival, String message) {
    byte[] b = bytes(message);
    t.offer(arrival, b, 0, b.length);
  }

  @Test
  void theP99IsTheNearestRank() {
    long[] a = new long[1000];
    for (int i = 0; i < a.length; i++) a[i] = a.length - i;   // 1000 .. 1, unsorted
    assertEquals(990, TripSample.p99(a, 1000));
    assertEquals(1000 - 99 + 98, TripSample.p99(a, 100), "of 1000..901: the 99th smallest, 999");
    assertEquals(1000, TripSample.p99(a, 1));
    assertEquals(0, TripSample.p99(a, 0));
  }

  @Test
  void aTargetsMessagesAreTimedBySentUsOnTheEngineClock() {
    TripSample t = TripSample.target(MessageRule.compile("extract.sentUs", "/sentUs"), 1000);
    assertTrue(t.times());
    assertEquals(TripSample.ENGINE_CLOCK, t.basis);
    long arrival = 1_700_000_000_000_000L;
    for (int i = 1; i <= 100; i++) offer(t, arrival, "{\"seq\":" + i + ",\"sentUs\":" + (arrival - i * 1000L) + "}");
    offer(t, arrival, "{\"hello\":1}");   // no stamp: not timed
    TripSample.Result r = t.close(1000);
    assertEquals(100, r.timed());
    assertEquals(99_000, r.p99Micros(), "trips 1..100 ms: p99 99 ms");
    assertEquals(1, t.every(), "101 messages a second: every one timed");
    TripSample.Result none = t.close(1000);
    assertEquals(0, none.timed());
    assertEquals(0, none.p99Micros());
  }

  @Test
  void aBuiltInRecordIsTimedByItsCreatedStampInMsOnTheServerClockAndOnlyAnEmitCyclesRecord() {
    TripSample t = TripSample.builtIn(1000);
    assertEquals(TripSample.SERVER_CLOCK, t.basis);
    long arrival = 1_700_000_000_123_456L;
    offer(t, arrival, "{\"response\":{\"event\":{\"name\":\"event1\",\"cycle\":17,\"timings\":{\"duration\":3,\"sent\":1700000000123,"
        + "\"created\":1700000000120}}},\"request\":{\"type\":\"comet\"}}");
    offer(t, arrival, "{\"response\":{\"replay\":{\"name\":\"event1\",\"cycle\":9,\"timings\":{\"created\":1699999990000}}}}");
    offer(t, arrival, "{\"response\":{\"timeout\":true}}");
    TripSample.Result r = t.close(1000);
    assertEquals(1, r.timed(), "a replay and a timeout record are no emit cycle's");
    assertEquals(3_456, r.p99Micros(), "arrival - created x 1000");
  }

  @Test
  void everyKthMessageIsTimedWithKFromTheLastIntervalsRateAndABurstStaysBounded() {
    TripSample t = TripSample.target(MessageRule.compile("s", "s=([0-9]+)"), 1000);
    byte[] m = bytes("seq=1 s=1000");
    for (int i = 0; i < 100_000; i++) t.offer(2000, m, 0, m.length);   // a first interval's burst, k = 1 at its start
    TripSample.Result burst = t.close(1000);
    assertTrue(burst.timed() > 200 && burst.timed() <= 200 * 10, "a burst of 100,000: timed within the budget x log2(500), got " + burst.timed());
    assertEquals(1000, burst.p99Micros());
    assertEquals(500, t.every(), "100,000 a second: every 500th timed, 200 a second");
    for (int i = 0; i < 100_000; i++) t.offer(2000, m, 0, m.length);
    assertEquals(200, t.close(1000).timed());
    for (int i = 0; i < 250; i++) t.offer(2000, m, 0, m.length);
    assertEquals(0, t.close(1000).timed(), "k is the last interval's: none of 250 is a 500th");
    assertEquals(2, t.every(), "250 a second: every 2nd, 125 a second (at most 200)");
    for (int i = 0; i < 250; i++) t.offer(2000, m, 0, m.length);
    assertEquals(125, t.close(1000).timed());
    assertEquals(2, t.every());
  }

  @Test
  void messagesWithoutAStampUseTheirTurnSoTheirReadsStayWithinTheBudget() {
    TripSample t = TripSample.builtIn(1000);
    byte[] pull = bytes("{\"response\":{\"events\":[]},\"request\":{\"type\":\"pull\",\"cursor\":{}}}");
    for (int i = 0; i < 100_000; i++) t.offer(2000, pull, 0, pull.length);   // a first interval, k = 1 at its start
    assertTrue(t.read() > 200 && t.read() <= 200 * 10, "100,000 without a stamp: read within the budget x log2(500), got " + t.read());
    assertEquals(0, t.close(1000).timed());
    assertEquals(500, t.every(), "100,000 a second: every 500th read, 200 a second");
    for (int i = 0; i < 100_000; i++) t.offer(2000, pull, 0, pull.length);
    assertEquals(200, t.read(), "a steady rate: 200 reads a second, none timed");
    assertEquals(0, t.close(1000).timed());
  }

  @Test
  void atMostCapacityTripsAreKeptAndTheirP99StaysTheIntervals() {
    TripSample t = TripSample.target(MessageRule.compile("s", "/s"), 100_000);
    for (int i = 1; i <= 20_000; i++) t.add(i);   // trips 1..20,000 µs: p99 19,800
    TripSample.Result r = t.close(100_000);
    assertEquals(20_000, r.timed());
    assertTrue(Math.abs(r.p99Micros() - 19_800) < 300, "a uniform sample of 2,048 of them: p99 near 19,800, got " + r.p99Micros());
  }

  @Test
  void withoutARuleNothingIsTimed() {
    TripSample t = TripSample.target(null, 1000);
    assertFalse(t.times());
    offer(t, 5, "{\"sentUs\":1}");
    assertEquals(0, t.close(1000).timed());
  }
}
