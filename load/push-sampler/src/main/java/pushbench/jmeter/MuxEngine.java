package pushbench.jmeter;

// The multiplexing engine of one mux thread (MuxSampler): one java.nio Selector drives this thread's share
// of the engine's connections (i ≡ shard mod shards), non-blocking, one shared 64 KB read buffer. Rules:
// - connection i opens at start + rampup * i / connections; a request's B line is written when it is about
//   to be written (for a new connection: before the connect);
// - comet: a stream that ends (or fails) before the duration is requested again; poll: the next request
//   follows each answer at once on the kept-alive connection (a new one if the server closed it); pull: the
//   next request follows pullInterval ms after an answer, carrying the answer's cursor; sse: a stream that
//   ends or breaks is requested again as EventSource does, after the retry the server gave (else
//   MuxConfig.SSE_RETRY_MS; after a failure at least the backoff), with Last-Event-ID the last event id it
//   got, so the server replays what it missed (replay and gap records are records like the others);
//   ws (WebSocket, RFC 6455; docs/engine.md "WebSocket"): an upgrade of a GET with a random
//   Sec-WebSocket-Key; a 101 whose Sec-WebSocket-Accept matches it opens the stream, and the subscription
//   (the body, with on a reconnection the cursor of the last cycle per name the connection got) goes out
//   as one masked text frame; then each text message is a record (WsFrames reads the frames), a ping is
//   answered with a pong, a close with a close, and the answer ends there (codes 1000 and 1001 a normal
//   end, others a failure naming the code). Any other answer, a bad accept, a protocol error or a
//   connection ending without a close frame is a failed answer. A stream that ends or breaks is requested
//   again as an SSE stream is, after cfg.wsRetryMs (after a failure at least the backoff);
// - churn (sse and ws, cfg.churnShare > 0; issue #38): once a second each stream that is open (its head
//   read; a WebSocket's upgrade done) is dropped by the client with probability churnShare, as a network
//   drops it: the channel closed without a close frame, the answer ended ok with CHURNED as its message
//   (what was read of a record counted as cut), and the stream requested again as a broken one is (SSE:
//   after the server's retry, with Last-Event-ID; WebSocket: after wsRetryMs, with its cursor), so the
//   analysis counts what was lost across the reconnection;
// - no request starts at or after start + duration; requests in flight go on until they end; the engine is
//   finished when none is left after the duration, or at the hard deadline start + duration +
//   responseTimeout + deadlineGrace, where whatever is open ends as an error ("engine deadline");
// - a connect longer than connectTimeout, or a silence longer than responseTimeout on a connection with a
//   request in flight, ends that request failed and closes its connection;
// - a network error ends that connection's request (E line with the exception) and the connection tries
//   again after a backoff (100 ms doubling to 5 s, back to 100 ms after a good answer); so does an answer
//   the server refused (a status outside 2xx/3xx, or `error` in it), so a refusing server is not hammered;
//   a "not timeout" failure (a poll that timed out although an event was set) is an answer like any other,
//   the next request follows at once;
// - a request on a kept-alive connection that fails before any byte of its answer (the server closed the
//   idle connection) is sent once more on a new connection under the same sample, as PushClient does;
// - an answer read to its end fails on the first of: "not error" (`error` in its first or, from two records
//   on, its last record: NOT_ERROR), "not timeout" (`timeout` there, only with failOnTimeout: NOT_TIMEOUT),
//   a status outside 2xx/3xx ("HTTP status <code> <reason>"); a network error's failure is the exception.
// - read coalescing (cfg.coalesceMicros > 0): a select that would wait starts at least coalesceMicros after
//   the previous select started, the thread parked until then (never past its next timer), so one wake-up
//   reads every stream that became ready meanwhile; a record's read, its R stamp and its trip come at most
//   that much later (docs/engine.md "Read coalescing");
// Every record goes to this thread's stream log batch as an R line stamped at its read; each answer ends
// with an E line carrying its outcome and failure (MuxSampler's assertions). The batch goes to the log's
// writer when due (StreamLog.Batch.submitIfDue: half full, or submitEveryMs old, the selector waking by
// then) and at each interval's end.
// Counters per interval go into an Interval (MuxSampler's summary), with the p99 of the interval's timed
// sample of messages (TripSample, MuxStates.onRecord).
// A target run (cfg.target; issue #47, docs/targets.md, docs/engine.md "Target mode") keeps these rules
// but for:
// - requests: connection i subscribes to the spec's channel i mod channels with the spec's URL, headers and
//   placeholders (TargetSpec); sse adds Last-Event-ID on a reconnection, ws sends the spec's `send` (if any)
//   after the 101 instead of the protocol's subscription, stream is comet's held GET cut by the spec's
//   framing, poll and pull echo the spec's cursor headers (a response header's last value as a request
//   header) and fill {{cursor}} with what the spec's rule took from the connection's last message;
//   a poll's answer's whole body is one message (a 304 or an empty body none);
// - samples: a poll or pull subscription is ONE sample across its answers (B at its first request, E when
//   it fails or ends), its E line's records and body bytes summed and its headers µs (the 12th field,
//   "subscribed from") its first answer's head; every other transport's answer is a sample as above;
// - assertions: none on messages (a message holding "error" is a message); a status outside 2xx/3xx or a
//   network error is a failed answer as above;
// - reconnection: a held stream that ends is requested again after cfg.wsRetryMs, as a WebSocket one;
// - the end: at start + duration the engine ends every open sample itself, ok with the message END_OF_TEST
//   (what was read of a message counted as cut), closes every channel and is finished;
// - R lines: a message's tabs and line ends are written as spaces (the log's line format);
// - TLS (issue #49; an https:// or wss:// subscribe URL): after the TCP connect the connection's TlsLink
//   (an SSLEngine of the spec's TlsConfig, whose session cache resumes reconnections) handshakes on this
//   selector, under the connect timeout ("TLS handshake timed out"), before the request is written; reads
//   and writes go through it; records TlsLink.read() left because the read buffer was full are read again
//   before the next select (the socket will not announce them); a TLS failure's E line names its kind
//   (TlsLink.failureKind, e.g. "TLS: certificate untrusted"); handshakes, their µs, resumptions and
//   failures by kind are counted in the Interval (the summary sample's message).

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.channels.Selector;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

final class MuxEngine implements Closeable {
  static final int READ_BUFFER = 1 << 16;
  static final int BACKOFF_FIRST_MS = 100;
  static final int BACKOFF_MAX_MS = 5000;
  static final String NOT_ERROR = "Test failed: text expected not to contain /error/";
  static final String NOT_TIMEOUT = "response contains timeout although an event was set";
  static final String CHURNED = "churn: dropped by the client";

  /** The failure of an answer with a status outside 2xx/3xx: "HTTP status <code>[ <reason>]". */
  static String httpStatusFailure(int status, String reason) {
    return "HTTP status " + status + (reason == null || reason.isEmpty() ? "" : " " + reason);
  }
  /** A target run's subscription the engine closed at the duration's end (docs/targets.md). */
  static final String END_OF_TEST = "end of test";
  static final long CHURN_EVERY_MS = 1000;

  /** Counters of one summary interval. */
  static final class Interval {
    long startMillis;
    long endMillis;
    int answers;
    int errors;
    long records;
    long bytes;
    long sentBytes;
    int opened;
    int backoffs;
    int churned;
    int open;
    /** Selects made (the selector's wake-ups, waiting or not). */
    long selects;
    /** Sweeps made (scans of every connection for timeouts, sweep()). */
    int sweeps;
    String firstFailure;
    /** TLS: handshakes done, of them resumed sessions, their µs summed and the longest; failures by kind. */
    int tlsHandshakes;
    int tlsResumed;
    long tlsHandshakeMicros;
    long tlsHandshakeMaxMicros;
    java.util.TreeMap<String, Integer> tlsFailures;
    /** The timed sample (TripSample): its trips' p99 (µs), how many were timed (0: none), whose clock. */
    long tripP99Micros;
    int tripTimed;
    String tripBasis;
  }

  private final MuxConfig cfg;
  private final int shard;
  private final int shards;
  private final long start;            // monotonic ms, engine-wide
  private final long endAt;            // no request starts from here on
  private final long hardDeadline;
  /**
   * The longest time between two sweeps in the load's first cfg.sweepBoundedForMs: a sweep at least once a
   * second keeps the selector loop's sweep branch taken from its first seconds, so C2 compiles it as taken. A
   * branch first taken after the loop was compiled traps (an unstable if), and the loop is compiled again
   * mid-load (docs/engine.md "Timeouts swept when due").
   */
  static final long SWEEP_AT_MOST_EVERY_MS = 1000;
  private final long shortestTimeoutMs; // the shorter of the connect and response timeouts (none: Integer.MAX_VALUE)
  private final long sweepEveryMs;      // after the duration: how often idle connections are looked for
  private final Selector selector;
  /** The connections' states: requests, reads, answers' ends, channels (MuxStates). */
  private final MuxStates states;
  private final MuxConnection[] conns; // this thread's connections, by j (i = shard + j * shards)
  private final SplittableRandom random = new SplittableRandom();   // churn's draws
  private final boolean target;        // a target run (cfg.target)
  private final MuxTimers<MuxConnection> timers = new MuxTimers<>(c -> c.wakeAt);
  private int nextOpen;                // j of the next connection to open
  /**
   * When each connection j opens (openAt), Long.MAX_VALUE for one that would open at or after the duration
   * (never) and after the last: the ramp-up is a lookup and one comparison whose both outcomes the ramp-up
   * itself takes, so its end takes no branch the JIT compiled as never taken (no deoptimisation and
   * recompilation of the selector loop mid-load, docs/engine.md "The JIT in the steady window"). 8 bytes
   * a connection; openTimes[nextOpen] is when the next opens.
   */
  private final long[] openTimes;
  private long nextSweep;
  private long nextChurn;
  private long lastSelectNanos;        // when the last select started (System.nanoTime)
  private boolean finished;
  private volatile boolean stopRequested;
  /** The current interval's counters, which MuxStates counts into. */
  Interval iv = new Interval();

  /** start: the engine-wide start instant on System.nanoTime()'s clock, in ms. log may be null. */
  MuxEngine(MuxConfig cfg, int shard, int shards, long start, StreamLog log) throws IOException {
    if (shards < 1 || shard < 0 || shard >= shards) throw new IllegalArgumentException("shard " + shard + " of " + shards);
    this.cfg = cfg;
    this.shard = shard;
    this.shards = shards;
    this.start = start;
    this.endAt = start + cfg.durationMs;
    this.hardDeadline = endAt + cfg.responseTimeoutMs + cfg.deadlineGraceMs;
    this.shortestTimeoutMs = Math.min(positiveOr(cfg.connectTimeoutMs), positiveOr(cfg.responseTimeoutMs));
    this.sweepEveryMs = Math.max(5, Math.min(250, shortestTimeoutMs / 10));
    this.target = cfg.target != null;
    int owned = cfg.connections > shard ? (cfg.connections - shard + shards - 1) / shards : 0;
    this.conns = new MuxConnection[owned];
    this.selector = Selector.open();
    this.states = new MuxStates(this, cfg, selector, log);
    this.nextChurn = start + CHURN_EVERY_MS;
    this.openTimes = new long[owned + 1];
    for (int j = 0; j < owned; j++) {
      long at = openAt(j);
      openTimes[j] = at < endAt ? at : Long.MAX_VALUE;
    }
    openTimes[owned] = Long.MAX_VALUE;
  }

  private static int positiveOr(int ms) {
    return ms > 0 ? ms : Integer.MAX_VALUE;
  }

  boolean finished() { return finished; }

  /** Connections of this thread with an open channel. */
  int openChannels() { return states.openChannels(); }

  /** Ends the current interval early and finishes the engine (JMeter stops the test); any thread. */
  void stop() {
    stopRequested = true;
    selector.wakeup();
  }

  /** Runs the selector loop for at most maxMs (less when the engine finishes) and returns its counters. */
  Interval runFor(long maxMs) {
    iv = new Interval();
    iv.startMillis = System.currentTimeMillis();
    long until = mono() + maxMs;
    while (!finished) {
      long now = mono();
      step(now);
      if (finished || now >= until) break;
      if (stopRequested) {
        finished = true;
        break;
      }
      select(states.readsPending() ? 0 : Math.min(until, nextEvent(now)) - now);
      states.readPending();
      states.submitLinesIfDue(mono());
    }
    states.submitLines();
    iv.open = states.openChannels();
    iv.endMillis = Math.max(iv.startMillis, System.currentTimeMillis());
    TripSample.Result trip = states.trips().close(iv.endMillis - iv.startMillis);
    iv.tripP99Micros = trip.p99Micros();
    iv.tripTimed = trip.timed();
    iv.tripBasis = states.trips().basis;
    return iv;
  }

  // ---- the loop's steps ------------------------------------------------------------------------------------

  // What is due at now: the hard deadline, connections to open, timers, timeouts, the end.
  private void step(long now) {
    if (now >= hardDeadline) {
      endAll("engine deadline");
      finished = true;
      return;
    }
    if (target && now >= endAt) {
      endOfTest();
      finished = true;
      return;
    }
    if (now >= openTimes[nextOpen]) openDue(now);
    while (!timers.isEmpty() && timers.peek().wakeAt <= now) {
      MuxConnection c = timers.poll();
      c.state = MuxConnection.IDLE;
      states.startRequest(c);
    }
    if (now >= nextSweep) nextSweep = sweep(now);
    if (cfg.churnShare > 0 && now >= nextChurn && now < endAt) {
      churn();
      nextChurn = now + CHURN_EVERY_MS;
    }
    if (now >= endAt && states.active() == 0) {
      closeIdle();
      timers.clear();
      finished = true;
    }
  }

  private long openAt(int j) {
    long i = shard + (long) j * shards;
    return start + cfg.rampupMs * i / cfg.connections;
  }

  private void openDue(long now) {
    while (openTimes[nextOpen] <= now) {
      conns[nextOpen] = states.open(shard + nextOpen * shards);
      nextOpen++;
    }
  }

  // Connect and silence timeouts; after the duration, idle kept-alive connections are closed. Returns when
  // the next sweep is due: the first instant a timeout can fall due. That is the earliest deadline (since +
  // its timeout) of a connection in flight now, or this sweep's time plus the shortest timeout for one that
  // starts later or changes state, since every state with a timeout starts by setting since to its start
  // (MuxStates). So a timeout fails its connection when it falls due, and a load whose connections are all
  // busy is scanned rarely, not on a cadence of a fraction of the timeout (a scan touches every connection:
  // ~0.2 µs each at 15,000). In the load's first cfg.sweepBoundedForMs a sweep comes at the latest
  // SWEEP_AT_MOST_EVERY_MS on; before the duration's end the sweep at its end is due too; after it, every
  // sweepEveryMs.
  private long sweep(long now) {
    iv.sweeps++;
    long next = now + shortestTimeoutMs;
    for (int j = 0; j < nextOpen; j++) {
      MuxConnection c = conns[j];
      if (c == null) continue;
      if (c.inFlight()) {
        boolean connecting = c.state == MuxConnection.CONNECTING;
        int limit = connecting ? cfg.connectTimeoutMs : cfg.responseTimeoutMs;
        if (limit <= 0) continue;
        if (now - c.since >= limit) {
          states.failed(c, new SocketTimeoutException(!connecting ? "Read timed out"
              : c.tls != null && c.channel != null && c.channel.isConnected() ? "TLS handshake timed out" : "Connect timed out"));
        } else {
          next = Math.min(next, c.since + limit);
        }
      } else if (now >= endAt && c.channel != null) {
        states.closeChannel(c);
      }
    }
    if (now >= endAt) return Math.min(next, now + sweepEveryMs);
    next = Math.min(next, endAt);
    return now - start < cfg.sweepBoundedForMs ? Math.min(next, now + SWEEP_AT_MOST_EVERY_MS) : next;
  }

  // Each open stream dropped with probability cfg.churnShare (the rule above).
  private void churn() {
    for (int j = 0; j < nextOpen; j++) {
      MuxConnection c = conns[j];
      if (c != null && states.streamOpen(c) && random.nextDouble() < cfg.churnShare) states.drop(c);
    }
  }

  private long nextEvent(long now) {
    long next = Math.min(hardDeadline, nextSweep);
    if (cfg.churnShare > 0 && now < endAt) next = Math.min(next, nextChurn);
    if (now < endAt) next = Math.min(next, endAt);
    next = Math.min(next, openTimes[nextOpen]);
    if (!timers.isEmpty()) next = Math.min(next, timers.peek().wakeAt);
    return Math.min(next, states.linesDueAtMs());
  }

  private void select(long waitMs) {
    if (waitMs > 0 && cfg.coalesceMicros > 0) {
      long pause = Math.min(lastSelectNanos + cfg.coalesceMicros * 1000 - System.nanoTime(), waitMs * 1_000_000);
      if (pause > 0) {
        LockSupport.parkNanos(pause);
        waitMs -= pause / 1_000_000;
      }
    }
    lastSelectNanos = System.nanoTime();
    iv.selects++;
    try {
      if (waitMs <= 0) selector.selectNow(states::onKey); else selector.select(states::onKey, waitMs);
    } catch (IOException e) {
      throw new IllegalStateException("selector failed", e);
    }
  }

  // The duration is over (a target run): every open sample ends ok with END_OF_TEST, every channel closes.
  private void endOfTest() {
    long now = PushClient.nowMicros();
    for (int j = 0; j < nextOpen; j++) {
      MuxConnection c = conns[j];
      if (c == null) continue;
      if (c.sampleOpen) {
        if (c.inFlight()) states.breakOff(c);
        // a poll waiting on its next answer ends with the status of the last one its subscription got
        int status = c.parser.status >= 0 ? c.parser.status : c.lastStatus;
        states.writeEnd(c, now, status >= 0 ? String.valueOf(status) : "", true, END_OF_TEST, "");
      }
      states.closeChannel(c);
    }
    timers.clear();
  }

  /** No request starts at this instant (monotonic ms): the duration is over or the test stops. */
  boolean noNewRequests(long at) {
    return at >= endAt || stopRequested;
  }

  /** c's next request after delayMs, unless it would start after the duration (then c closes). */
  void schedule(MuxConnection c, long delayMs) {
    long at = mono() + delayMs;
    if (noNewRequests(at)) {   // the next request would start after the duration
      c.state = MuxConnection.IDLE;
      states.closeChannel(c);
      return;
    }
    c.state = MuxConnection.WAITING;
    c.wakeAt = at;
    timers.add(c);
  }

  private void closeIdle() {
    for (int j = 0; j < nextOpen; j++) {
      if (conns[j] != null && !conns[j].inFlight()) states.closeChannel(conns[j]);
    }
  }

  // Ends every request in flight as an error with this message (E lines), closes every channel.
  private void endAll(String why) {
    for (int j = 0; j < nextOpen; j++) {
      MuxConnection c = conns[j];
      if (c == null) continue;
      if (c.inFlight() || c.sampleOpen) {
        c.parser.abort();
        InterruptedIOException e = new InterruptedIOException(why);
        states.writeEnd(c, PushClient.nowMicros(), "Non HTTP response code: " + e.getClass().getName(), false,
            "Non HTTP response message: " + why, e.toString());
      }
      states.closeChannel(c);
    }
    timers.clear();
  }

  /** Ends what is still in flight ("engine stopped"), closes every channel and the selector. */
  @Override
  public void close() {
    iv = new Interval();   // the last summary was returned: what ends now is in the log only
    endAll("engine stopped");
    states.submitLines();
    finished = true;
    try {
      selector.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  static long mono() {
    return System.nanoTime() / 1_000_000;
  }
}
