package pushbench.jmeter;

// The trip time of a bounded sample of one mux thread's messages, for the progress line (issue #47 item 3;
// docs/engine.md "Sampled trip time"). The engine does not extract a stamp from every message (the analysis
// does, after the run: the engine's cost per message stays its framing and its log line); it times every
// k-th message of its thread, k chosen at each summary from the last interval's messages a second so that
// at most PER_SECOND a second have their stamp read at a steady rate; within an interval k doubles each time
// another PER_SECOND x the interval's seconds were read (a run's first interval, a burst: the reads of one
// interval stay within that budget times the doublings, log2 of the burst over it). It keeps at most
// CAPACITY trips an interval (beyond them a timed trip replaces a kept one with the chance CAPACITY /
// timed). The sample is the progress line's, not a measurement: the analysis times every message.
// A timed message's trip, µs, is its arrival (the engine's read, PushClient.nowMicros) minus its stamp:
//   a target run: the message's sentUs by the spec's extract.sentUs rule, the engine's own clock (the
//     publisher of a channel is on its subscribers' engine): basis ENGINE_CLOCK; no rule: nothing timed;
//   a built-in run: the record's response.event.timings.created (ms, the server's clock; the clock offset
//     is not corrected here, the analysis corrects it): basis SERVER_CLOCK; records of no emit cycle
//     (replays, pulls, timeouts) are not timed.
// A message whose stamp is missing or not a number is not timed, and it used its turn: a stream whose
// messages carry no stamp (pulls, timeouts) is read at the same bounded rate, not message by message (a
// read is a JSON parse, 1-3 µs, against the engine's 10-30 µs per message). close() gives the
// interval's p99 (nearest rank: the ceil(0.99 n)-th smallest of the n kept) and n, and starts the next.

import java.util.Arrays;
import java.util.SplittableRandom;

final class TripSample {
  /**
   * Messages timed a second per mux thread at most, at a steady rate: 200, or the engine JVM's system property
   * pushbench.tripSample.perSecond (0: none timed; for measuring what the sample costs, docs/engine.md).
   */
  static final int PER_SECOND = Math.max(0, Integer.getInteger("pushbench.tripSample.perSecond", 200));
  /** Trips kept per interval at most. */
  static final int CAPACITY = 2048;
  static final String ENGINE_CLOCK = "engine clock";
  static final String SERVER_CLOCK = "server clock";
  private static final MessageRule CREATED = MessageRule.compile("created", "/response/event/timings/created");

  /** An interval's result: the p99 of its timed trips (µs; 0 when none) and how many were timed. */
  record Result(long p99Micros, int timed) { }

  private final MessageRule rule;   // null: nothing is timed
  private final boolean millis;     // the rule's stamp is in ms (created), else µs (sentUs)
  /** ENGINE_CLOCK or SERVER_CLOCK: whose clock the stamps are. */
  final String basis;
  private final long[] trips = new long[CAPACITY];
  private final SplittableRandom random = new SplittableRandom(1);
  private int kept;
  private int timed;
  private int read;                  // messages whose stamp was read this interval, stamped or not
  private final int budget;          // timed a summary interval before k doubles
  private long every = 1;
  private long skipped;
  private long messages;

  private TripSample(MessageRule rule, boolean millis, String basis, long intervalMs) {
    this.rule = PER_SECOND == 0 ? null : rule;
    this.millis = millis;
    this.basis = basis;
    this.budget = (int) Math.max(1, Math.min(Integer.MAX_VALUE, PER_SECOND * intervalMs / 1000));
  }

  /** A target run's sample over summaries of intervalMs: sentUs by the spec's rule (null: nothing timed). */
  static TripSample target(MessageRule sentUs, long intervalMs) {
    return new TripSample(sentUs, false, ENGINE_CLOCK, intervalMs);
  }

  /** A built-in run's sample over summaries of intervalMs: the record's created stamp. */
  static TripSample builtIn(long intervalMs) {
    return new TripSample(CREATED, true, SERVER_CLOCK, intervalMs);
  }

  /** Whether this sample times anything (a target without extract.sentUs does not). */
  boolean times() {
    return rule != null;
  }

  /** A message b[off, off + len) arrived at arrivalMicros: counted, and timed when its turn has come. */
  void offer(long arrivalMicros, byte[] b, int off, int len) {
    messages++;
    if (rule != null && ++skipped >= every) time(arrivalMicros, b, off, len);
  }

  // The message's turn: its stamp read and its trip added (apart from offer, so the per-message path stays
  // small enough to be inlined into the engine's record path).
  private void time(long arrivalMicros, byte[] b, int off, int len) {
    skipped = 0;
    if (++read % budget == 0) every *= 2;
    double stamp = rule.number(b, off, len);
    if (Double.isNaN(stamp)) return;   // no stamp: not timed, its turn used
    add(arrivalMicros - (millis ? Math.round(stamp * 1000) : Math.round(stamp)));
  }

  /** Adds one trip (µs). */
  void add(long tripMicros) {
    timed++;
    if (kept < CAPACITY) {
      trips[kept++] = tripMicros;
      return;
    }
    int j = random.nextInt(timed);
    if (j < CAPACITY) trips[j] = tripMicros;
  }

  /** The interval of intervalMs ended: its result; the next interval times every k-th message (k from this one's rate). */
  Result close(long intervalMs) {
    Result r = new Result(p99(trips, kept), timed);
    long perInterval = Math.max(1, PER_SECOND * intervalMs / 1000);   // the timed messages a steady rate gives
    if (intervalMs > 0) every = Math.max(1, (messages + perInterval - 1) / perInterval);
    kept = 0;
    timed = 0;
    read = 0;
    messages = 0;
    return r;
  }

  /** Every k-th message is timed (for tests and the summary). */
  long every() {
    return every;
  }

  /** Messages whose stamp was read in the current interval, stamped or not (for tests). */
  int read() {
    return read;
  }

  // Nearest rank: the ceil(0.99 n)-th smallest of a[0, n); 0 when n is 0.
  static long p99(long[] a, int n) {
    if (n == 0) return 0;
    long[] s = Arrays.copyOf(a, n);
    Arrays.sort(s);
    int rank = (int) Math.ceil(0.99 * n);
    return s[Math.max(1, rank) - 1];
  }
}
