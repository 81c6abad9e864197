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
// Every record goes to this thread's stream log batch as an R line stamped at its read; each answer ends
// with an E line carrying its outcome and failure (MuxSampler's assertions). The batch is submitted after
// each wake-up that produced lines. Counters per interval go into an Interval (MuxSampler's summary).
// A target run (cfg.target; issue #47, docs/targets.md, docs/engine.md "Target mode") keeps these rules
// but for:
// - requests: connection i subscribes to the spec's channel i mod channels with the spec's URL, headers and
//   placeholders (TargetSpec); sse adds Last-Event-ID on a reconnection, ws sends the spec's `send` (if any)
//   after the 101 instead of the protocol's subscription, stream is comet's held GET cut by the spec's
//   framing, poll and pull echo the spec's cursor headers (a response header's last value as a request
//   header); a poll's answer's whole body is one message (a 304 or an empty body none);
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
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

final class MuxEngine implements Closeable {
  static final int READ_BUFFER = 1 << 16;
  static final int BACKOFF_FIRST_MS = 100;
  static final int BACKOFF_MAX_MS = 5000;
  static final String NOT_ERROR = "Test failed: text expected not to contain /error/";
  static final String NOT_TIMEOUT = "response contains timeout although an event was set";
  static final String CHURNED = "churn: dropped by the client";
  /** A target run's subscription the engine closed at the duration's end (docs/targets.md). */
  static final String END_OF_TEST = "end of test";
  static final long CHURN_EVERY_MS = 1000;
  private static final int READS_PER_WAKEUP = 4;
  private static final byte[] NOTHING = new byte[0];

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
    String firstFailure;
    /** TLS: handshakes done, of them resumed sessions, their µs summed and the longest; failures by kind. */
    int tlsHandshakes;
    int tlsResumed;
    long tlsHandshakeMicros;
    long tlsHandshakeMaxMicros;
    java.util.TreeMap<String, Integer> tlsFailures;
  }

  private final MuxConfig cfg;
  private final int shard;
  private final int shards;
  private final long start;            // monotonic ms, engine-wide
  private final long endAt;            // no request starts from here on
  private final long hardDeadline;
  private final long sweepEveryMs;
  private final StreamLog log;
  private final StreamLog.Batch batch;
  private final Selector selector;
  private final ByteBuffer readBuffer = ByteBuffer.allocate(READ_BUFFER);
  /** TLS: the subscriptions' settings (null: plain TCP) and this thread's scratch buffers. */
  private final TlsConfig tls;
  private final TlsLink.Scratch tlsScratch = new TlsLink.Scratch();
  /** TLS connections whose read stopped with whole records left (TlsLink.more): read before the next select. */
  private final java.util.ArrayDeque<MuxConnection> pendingReads = new java.util.ArrayDeque<>();
  private final InetSocketAddress address;
  private final byte[] sharedRequest;  // comet, poll and an SSE stream's first: every request is the same bytes
  private final boolean headRequest;
  private final MuxConnection[] conns; // this thread's connections, by j (i = shard + j * shards)
  private final SplittableRandom random = new SplittableRandom();   // WS keys and masks
  private final byte[][] wsNames;      // WS: the subscription's event names (the cursor's)
  private final TargetSpec target;     // a target run's spec; null: the built-in protocol
  private final String[] cursorNames;  // a target poll's cursor response headers, lower case
  private final PriorityQueue<MuxConnection> timers =
      new PriorityQueue<>((a, b) -> Long.compare(a.wakeAt, b.wakeAt));
  private int nextOpen;                // j of the next connection to open
  private int active;                  // requests in flight
  private int openChannels;
  private long nextSweep;
  private long nextChurn;
  private long localIds;
  private boolean finished;
  private volatile boolean stopRequested;
  private Interval iv = new Interval();

  /** start: the engine-wide start instant on System.nanoTime()'s clock, in ms. log may be null. */
  MuxEngine(MuxConfig cfg, int shard, int shards, long start, StreamLog log) throws IOException {
    if (shards < 1 || shard < 0 || shard >= shards) throw new IllegalArgumentException("shard " + shard + " of " + shards);
    this.cfg = cfg;
    this.shard = shard;
    this.shards = shards;
    this.start = start;
    this.endAt = start + cfg.durationMs;
    this.hardDeadline = endAt + cfg.responseTimeoutMs + cfg.deadlineGraceMs;
    int shortest = Math.min(positiveOr(cfg.connectTimeoutMs), positiveOr(cfg.responseTimeoutMs));
    this.sweepEveryMs = Math.max(5, Math.min(250, shortest / 10));
    this.log = log;
    this.batch = log == null ? null : log.batch();
    this.address = new InetSocketAddress(cfg.host, cfg.port);
    this.target = cfg.target;
    this.tls = target != null && target.subscribeUrl.tls() ? target.tls : null;
    this.sharedRequest = target != null || cfg.type == MuxConfig.Type.PULL || cfg.type == MuxConfig.Type.WS ? null
        : cfg.type == MuxConfig.Type.SSE ? cfg.sseRequest(null) : cfg.request(cfg.body);
    this.wsNames = target == null && cfg.type == MuxConfig.Type.WS ? cfg.wsEvents() : new byte[0][];
    this.cursorNames = new String[target == null ? 0 : target.cursorFrom.length];
    for (int k = 0; k < cursorNames.length; k++) cursorNames[k] = target.cursorFrom[k].toLowerCase(java.util.Locale.ROOT);
    this.headRequest = "HEAD".equals(cfg.method);
    int owned = cfg.connections > shard ? (cfg.connections - shard + shards - 1) / shards : 0;
    this.conns = new MuxConnection[owned];
    this.selector = Selector.open();
    this.nextChurn = start + CHURN_EVERY_MS;
  }

  private static int positiveOr(int ms) {
    return ms > 0 ? ms : Integer.MAX_VALUE;
  }

  boolean finished() { return finished; }

  boolean checksTimeout() { return cfg.failOnTimeout; }

  /** A target run's spec; null: the built-in protocol. */
  TargetSpec target() { return target; }

  private boolean sse() { return cfg.type == MuxConfig.Type.SSE; }

  private boolean ws() { return cfg.type == MuxConfig.Type.WS; }

  /** WS: the subscription's event names, in its order. */
  byte[][] wsNames() { return wsNames; }

  // An SSE connection's reconnection time: the server's retry, else the default.
  private long retryMs(MuxConnection c) {
    return c.retryMs >= 0 ? c.retryMs : MuxConfig.SSE_RETRY_MS;
  }

  /** Connections of this thread with an open channel. */
  int openChannels() { return openChannels; }

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
      select(pendingReads.isEmpty() ? Math.min(until, nextEvent(now)) - now : 0);
      readPending();
      submitLines();
    }
    submitLines();
    iv.open = openChannels;
    iv.endMillis = Math.max(iv.startMillis, System.currentTimeMillis());
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
    if (target != null && now >= endAt) {
      endOfTest();
      finished = true;
      return;
    }
    openDue(now);
    while (!timers.isEmpty() && timers.peek().wakeAt <= now) {
      MuxConnection c = timers.poll();
      c.state = MuxConnection.IDLE;
      startRequest(c);
    }
    if (now >= nextSweep) {
      sweep(now);
      nextSweep = now + sweepEveryMs;
    }
    if (cfg.churnShare > 0 && now >= nextChurn && now < endAt) {
      churn();
      nextChurn = now + CHURN_EVERY_MS;
    }
    if (now >= endAt && active == 0) {
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
    while (nextOpen < conns.length && openAt(nextOpen) <= now) {
      if (openAt(nextOpen) >= endAt) {   // opens at or after the duration: never
        nextOpen = conns.length;
        return;
      }
      MuxConnection c = new MuxConnection(this, shard + nextOpen * shards);
      c.backoffMs = BACKOFF_FIRST_MS;
      if (cfg.type == MuxConfig.Type.PULL && target == null) c.cursor = "{}";
      conns[nextOpen++] = c;
      startRequest(c);
    }
  }

  // Connect and silence timeouts; after the duration, idle kept-alive connections are closed.
  private void sweep(long now) {
    for (int j = 0; j < nextOpen; j++) {
      MuxConnection c = conns[j];
      if (c == null) continue;
      if (c.inFlight()) {
        boolean connecting = c.state == MuxConnection.CONNECTING;
        int limit = connecting ? cfg.connectTimeoutMs : cfg.responseTimeoutMs;
        if (limit > 0 && now - c.since >= limit) {
          failed(c, new SocketTimeoutException(!connecting ? "Read timed out"
              : c.tls != null && c.channel != null && c.channel.isConnected() ? "TLS handshake timed out" : "Connect timed out"));
        }
      } else if (now >= endAt && c.channel != null) {
        closeChannel(c);
      }
    }
  }

  // Each open stream dropped with probability cfg.churnShare (the rule above).
  private void churn() {
    for (int j = 0; j < nextOpen; j++) {
      MuxConnection c = conns[j];
      if (c != null && streamOpen(c) && random.nextDouble() < cfg.churnShare) drop(c);
    }
  }

  // A stream is open once its 200 head was read (WebSocket: once the upgrade was accepted).
  private boolean streamOpen(MuxConnection c) {
    return c.state == MuxConnection.READING && (ws() ? c.frames != null : c.parser.headersMicros > 0 && c.parser.status == 200);
  }

  private void drop(MuxConnection c) {
    breakOff(c);
    iv.churned++;
    writeEnd(c, PushClient.nowMicros(), ws() ? "101" : String.valueOf(c.parser.status), true, CHURNED, "");
    closeChannel(c);
    schedule(c, ws() ? cfg.wsRetryMs : retryMs(c));
  }

  private long nextEvent(long now) {
    long next = Math.min(hardDeadline, nextSweep);
    if (cfg.churnShare > 0 && now < endAt) next = Math.min(next, nextChurn);
    if (now < endAt) next = Math.min(next, endAt);
    if (nextOpen < conns.length) next = Math.min(next, openAt(nextOpen));
    if (!timers.isEmpty()) next = Math.min(next, timers.peek().wakeAt);
    return next;
  }

  private void select(long waitMs) {
    try {
      if (waitMs <= 0) selector.selectNow(this::onKey); else selector.select(this::onKey, waitMs);
    } catch (IOException e) {
      throw new IllegalStateException("selector failed", e);
    }
  }

  // TLS records left in their links when the read buffer was full (TlsLink.more): read now.
  private void readPending() {
    for (int k = pendingReads.size(); k > 0; k--) {
      MuxConnection c = pendingReads.poll();
      if (c.tls == null || !c.tls.more() || c.key == null) continue;
      try {
        readable(c);
      } catch (IOException e) {
        if (c.inFlight()) failed(c, e); else closeChannel(c);
      }
    }
  }

  private void submitLines() {
    if (batch != null && batch.size() > 0) batch.submit();
  }

  // ---- requests ----------------------------------------------------------------------------------------------

  private void startRequest(MuxConnection c) {
    if (mono() >= endAt || stopRequested) {   // no new request after the duration
      c.state = MuxConnection.IDLE;
      closeChannel(c);
      return;
    }
    if (!c.sampleOpen) {   // a target poll's next answer stays in its subscription's sample
      c.id = log != null ? log.nextSampleId() : ++localIds;
      c.beginMicros = PushClient.nowMicros();
      if (batch != null) batch.begin(c.beginMicros, c.id, cfg.threadPrefix, c.index + 1L, cfg.label);
      c.sampleOpen = true;
      c.sendMicros = 0;
      c.doneRecords = 0;
      c.doneBodyBytes = 0;
      c.firstHeadersMicros = 0;
      c.lastStatus = -1;
    }
    c.request = requestOf(c);
    startAnswer(c);
    active++;
    if (c.channel != null) {
      c.reused = true;
      beginSend(c);
    } else {
      c.reused = false;
      connect(c);
    }
  }

  // The parser ready for c's next answer: an upgrade's, a target's framing and cursor headers.
  private void startAnswer(MuxConnection c) {
    c.startAnswer(headRequest, sse());
    if (ws()) c.parser.expectUpgrade();
    if (target == null) return;
    if (target.transport == TargetSpec.Transport.STREAM) {
      switch (target.framing) {
        case CHUNK: c.parser.frame(AnswerParser.CHUNK, null); break;
        case DELIMITER: c.parser.frame(AnswerParser.DELIMITER, target.delimiter); break;
        default: break;   // lines: the parser's own cut
      }
    } else if (target.transport == TargetSpec.Transport.POLL || target.transport == TargetSpec.Transport.PULL) {
      c.parser.frame(AnswerParser.WHOLE, null);
      if (cursorNames.length > 0) c.parser.capture(cursorNames);
    }
  }

  // The bytes of c's next request: a pull's carry its cursor, an SSE reconnection's its last event id, a
  // WebSocket upgrade a key of its own; a target's are its spec's.
  private byte[] requestOf(MuxConnection c) {
    if (target != null) return targetRequest(c);
    if (cfg.type == MuxConfig.Type.PULL) return cfg.request(cfg.body + c.cursor + "}");
    if (ws()) {
      c.wsKey = WsFrames.key(random);
      return cfg.wsRequest(c.wsKey);
    }
    if (sse() && c.lastEventId != null && c.lastEventId.length > 0) return cfg.sseRequest(c.lastEventId);
    return sharedRequest;
  }

  // A target subscription's request for c: the spec's, with the transport's own headers after the user's.
  private byte[] targetRequest(MuxConnection c) {
    switch (target.transport) {
      case WS:
        c.wsKey = WsFrames.key(random);
        return target.subscribeRequest(c.index, MuxConfig.wsHeaders(c.wsKey));
      case SSE:
        return target.subscribeRequest(c.index, c.lastEventId == null || c.lastEventId.length == 0 ? ""
            : "Last-Event-ID: " + new String(c.lastEventId, java.nio.charset.StandardCharsets.ISO_8859_1) + "\r\n");
      case POLL: case PULL:
        StringBuilder cursor = new StringBuilder();
        for (int k = 0; c.cursorValues != null && k < cursorNames.length; k++) {
          if (c.cursorValues[k] != null) cursor.append(target.cursorTo[k]).append(": ").append(c.cursorValues[k]).append("\r\n");
        }
        return target.subscribeRequest(c.index, cursor.toString());
      default:
        return target.subscribeRequest(c.index, "");
    }
  }

  private void connect(MuxConnection c) {
    c.state = MuxConnection.CONNECTING;
    c.since = mono();
    try {
      if (address.isUnresolved()) throw new UnknownHostException(cfg.host);
      SocketChannel ch = SocketChannel.open();
      c.channel = ch;
      openChannels++;
      ch.configureBlocking(false);
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      boolean now = ch.connect(address);
      c.key = ch.register(selector, now ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, c);
      if (now) connected(c);
    } catch (IOException e) {
      failed(c, e);
    } catch (UnresolvedAddressException e) {
      failed(c, new UnknownHostException(cfg.host));
    }
  }

  private void connected(MuxConnection c) throws IOException {
    if (!c.channel.finishConnect()) return;
    iv.opened++;
    c.key.interestOps(SelectionKey.OP_READ);
    if (tls != null) {
      c.tls = new TlsLink(tls.engine(cfg.host, cfg.port), c.channel, tlsScratch);
      handshake(c);
      return;
    }
    beginSend(c);
  }

  // TLS: the handshake as far as it goes now; once done, counted and the request sent.
  private void handshake(MuxConnection c) throws IOException {
    if (!c.tls.handshake()) {
      c.key.interestOps(SelectionKey.OP_READ | (c.tls.wantsWrite() ? SelectionKey.OP_WRITE : 0));
      return;
    }
    long us = c.tls.handshakeMicros;
    iv.tlsHandshakes++;
    iv.tlsHandshakeMicros += us;
    iv.tlsHandshakeMaxMicros = Math.max(iv.tlsHandshakeMaxMicros, us);
    if (c.tls.resumed()) iv.tlsResumed++;
    c.key.interestOps(SelectionKey.OP_READ);
    beginSend(c);
  }

  private void beginSend(MuxConnection c) {
    c.state = MuxConnection.SENDING;
    c.since = mono();
    if (target == null || c.sendMicros == 0) c.sendMicros = PushClient.nowMicros();   // a target poll: its first
    c.written = 0;
    try {
      writeMore(c);
    } catch (IOException e) {
      failed(c, e);
    }
  }

  private void writeMore(MuxConnection c) throws IOException {
    ByteBuffer out = ByteBuffer.wrap(c.request, c.written, c.request.length - c.written);
    int n = c.tls != null ? c.tls.write(out) : c.channel.write(out);
    c.written += n;
    iv.sentBytes += n;
    if (n > 0) c.since = mono();
    boolean all = c.written == c.request.length && (c.tls == null || c.tls.flushed());
    if (all && c.state == MuxConnection.SENDING) c.state = MuxConnection.READING;
    if (all && ws()) {   // each WS request and frame is its connection's own: not kept once written
      c.request = NOTHING;
      c.written = 0;
    }
    c.key.interestOps(all ? SelectionKey.OP_READ : SelectionKey.OP_READ | SelectionKey.OP_WRITE);
  }

  // ---- events ------------------------------------------------------------------------------------------------

  private void onKey(SelectionKey k) {
    MuxConnection c = (MuxConnection) k.attachment();
    try {
      if (!k.isValid()) return;
      int ready = k.readyOps();
      if ((ready & SelectionKey.OP_CONNECT) != 0) {
        connected(c);
        return;
      }
      if (c.tls != null && !c.tls.handshaken()) {
        handshake(c);
        return;
      }
      if ((ready & SelectionKey.OP_WRITE) != 0 && c.request != null
          && (c.written < c.request.length || (c.tls != null && !c.tls.flushed()))) writeMore(c);
      if ((ready & SelectionKey.OP_READ) != 0 && k.isValid()) readable(c);
    } catch (CancelledKeyException e) {
      // closed by an earlier event of this wake-up: nothing left to do
    } catch (IOException e) {
      if (c.inFlight()) failed(c, e); else closeChannel(c);
    }
  }

  private void readable(MuxConnection c) throws IOException {
    byte[] b = readBuffer.array();
    for (int round = 0; round < READS_PER_WAKEUP; round++) {
      readBuffer.clear();
      int n = c.tls != null ? c.tls.read(readBuffer) : c.channel.read(readBuffer);
      if (c.tls != null && c.tls.wantsWrite()) c.key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);   // a key update's answer
      if (n == 0) return;
      if (n < 0) {
        ended(c);
        return;
      }
      iv.bytes += n;
      if (!c.inFlight()) {   // an idle connection the server writes to: not ours to guess at
        closeChannel(c);
        return;
      }
      c.since = mono();
      long stamp = PushClient.nowMicros();
      if (c.frames != null) {   // an open WebSocket stream
        if (!wsBytes(c, b, 0, n, stamp)) return;
      } else {
        int used = c.parser.feed(b, 0, n, stamp);
        if (c.parser.switched()) {   // a 101: the bytes after its head are frames
          if (!upgraded(c) || (used < n && !wsBytes(c, b, used, n - used, stamp))) return;
        } else if (c.parser.done()) {
          answered(c, used < n);
          return;
        }
      }
      if (n < b.length && (c.tls == null || !c.tls.more())) return;
    }
    if (c.tls != null && c.tls.more()) pendingReads.add(c);
  }

  // The server closed the connection: the end of a body read to the close, a broken answer, or an idle
  // kept-alive connection's end.
  private void ended(MuxConnection c) throws IOException {
    if (!c.inFlight()) {
      closeChannel(c);
      return;
    }
    if (c.frames != null) {   // RFC 6455 ends a stream with a close frame, never with the connection alone
      throw new EOFException(c.frames.midFrame() ? "WebSocket stream ended inside a frame"
          : "WebSocket stream ended without a close frame");
    }
    c.parser.endOfInput(c.parser.lastMicros != 0 ? c.parser.lastMicros : PushClient.nowMicros());
    answered(c, true);
  }

  void onRecord(MuxConnection c, long micros, byte[] b, int off, int len) {
    iv.records++;
    if (batch == null) return;
    if (target != null && breaksLine(b, off, len)) {   // a target's message may hold them: written as spaces
      byte[] copy = java.util.Arrays.copyOfRange(b, off, off + len);
      for (int i = 0; i < len; i++) if (copy[i] == '\t' || copy[i] == '\n' || copy[i] == '\r') copy[i] = ' ';
      b = copy;
      off = 0;
    }
    batch.record(micros, c.id, b, off, len);
  }

  private static boolean breaksLine(byte[] b, int off, int len) {
    for (int i = off; i < off + len; i++) if (b[i] == '\t' || b[i] == '\n' || b[i] == '\r') return true;
    return false;
  }

  // ---- WebSocket ---------------------------------------------------------------------------------------------

  // The 101 to c's upgrade was read: its accept checked, the subscription sent. False when the answer ended
  // here (a bad accept: a failed answer, the connection backs off).
  private boolean upgraded(MuxConnection c) {
    String want = WsFrames.acceptOf(c.wsKey);
    c.wsKey = null;
    if (!want.equals(c.parser.accept)) {
      String failure = "WebSocket handshake: Sec-WebSocket-Accept '" + c.parser.accept + "', expected '" + want + "'";
      writeEnd(c, c.parser.lastMicros, "101", false, failure, failure);
      closeChannel(c);
      backOff(c);
      return false;
    }
    c.frames = new WsFrames();
    try {
      if (target == null) {
        wsSend(c, WsFrames.TEXT, cfg.wsSubscription(c.wsCycles));
      } else {
        byte[] send = target.sendText(c.index);
        if (send != null) wsSend(c, WsFrames.TEXT, send);
      }
    } catch (IOException e) {
      failed(c, e);
      return false;
    }
    return true;
  }

  // Frames of c's open stream, read at stamp: false when the stream ended in them (a close frame).
  private boolean wsBytes(MuxConnection c, byte[] b, int off, int len, long stamp) throws IOException {
    c.parser.bodyBytes += len;
    c.parser.lastMicros = stamp;
    c.frames.feed(b, off, len, stamp, c);
    return c.frames != null;
  }

  /** Sends one masked frame on c (after what is still unsent of the previous one). */
  void wsSend(MuxConnection c, int opcode, byte[] payload) throws IOException {
    byte[] f = WsFrames.frame(opcode, payload, random);
    if (c.request != null && c.written < c.request.length) {
      byte[] all = new byte[c.request.length - c.written + f.length];
      System.arraycopy(c.request, c.written, all, 0, c.request.length - c.written);
      System.arraycopy(f, 0, all, c.request.length - c.written, f.length);
      f = all;
    }
    c.request = f;
    c.written = 0;
    writeMore(c);
  }

  /** The server closed c's stream with this code: the close answered, the answer ended, the next one planned. */
  void wsClosed(MuxConnection c, int code, String reason) {
    try {
      wsSend(c, WsFrames.CLOSE, code == WsFrames.NO_STATUS ? NOTHING : WsFrames.closePayload(code));
    } catch (IOException ignored) {
      // the server may be gone already: the answer ends anyway
    }
    c.frames = null;
    int flags = c.digestFlags();
    boolean normal = code == 1000 || code == 1001;
    String closeText = "WebSocket close " + code + (reason.isEmpty() ? "" : " " + reason);
    String failure = (flags & MuxConnection.HAS_ERROR) != 0 ? NOT_ERROR
        : (flags & MuxConnection.HAS_TIMEOUT) != 0 ? NOT_TIMEOUT : normal ? "" : closeText;
    writeEnd(c, c.parser.lastMicros, "101", failure.isEmpty(), closeText, failure);
    closeChannel(c);
    if (!normal || (flags & MuxConnection.HAS_ERROR) != 0) {
      backOff(c);
      return;
    }
    c.backoffMs = BACKOFF_FIRST_MS;
    schedule(c, cfg.wsRetryMs);
  }

  // ---- ends of answers ---------------------------------------------------------------------------------------

  // The answer was read to its end: its outcome, then the connection's next request.
  private void answered(MuxConnection c, boolean mustClose) {
    if (target != null) {
      targetAnswered(c, mustClose);
      return;
    }
    AnswerParser p = c.parser;
    boolean httpOk = !ws() && p.status >= 200 && p.status <= 399;   // an upgrade's 101 never ends here
    int flags = c.digestFlags();
    String failure;
    if ((flags & MuxConnection.HAS_ERROR) != 0) failure = NOT_ERROR;
    else if ((flags & MuxConnection.HAS_TIMEOUT) != 0) failure = NOT_TIMEOUT;
    else if (!httpOk) failure = "HTTP status " + p.status + (p.reason.isEmpty() ? "" : " " + p.reason)
        + (ws() ? " (not 101 Switching Protocols)" : "");
    else failure = "";
    boolean ok = failure.isEmpty();
    boolean close = mustClose || p.closeAfter || c.state != MuxConnection.READING || ws();   // answered mid-request
    writeEnd(c, p.lastMicros, String.valueOf(p.status), ok, p.reason, failure);
    if (close) closeChannel(c);
    if (!httpOk || (flags & MuxConnection.HAS_ERROR) != 0) {   // refused by the server: back off, do not spin
      backOff(c);
      return;
    }
    c.backoffMs = BACKOFF_FIRST_MS;
    if (cfg.type == MuxConfig.Type.PULL) {
      schedule(c, cfg.pullIntervalMs);
    } else if (sse()) {
      schedule(c, retryMs(c));
    } else {
      c.state = MuxConnection.IDLE;
      startRequest(c);
    }
  }

  // A target's answer read to its end: a poll's or pull's ok answer continues its subscription (no E line;
  // the next ask at once, or after the interval), any other answer ends its sample; a stream that ended is
  // requested again after wsRetryMs, an SSE stream after its retry; a refused one after the backoff.
  private void targetAnswered(MuxConnection c, boolean mustClose) {
    AnswerParser p = c.parser;
    boolean httpOk = !ws() && p.status >= 200 && p.status <= 399;
    boolean close = mustClose || p.closeAfter || c.state != MuxConnection.READING || ws();
    boolean polls = cfg.type == MuxConfig.Type.POLL || cfg.type == MuxConfig.Type.PULL;
    if (httpOk && polls) {
      c.doneRecords += p.records;
      c.doneBodyBytes += p.bodyBytes;
      if (c.firstHeadersMicros == 0) c.firstHeadersMicros = p.headersMicros;
      c.lastStatus = p.status;
      if (p.captured != null) {
        if (c.cursorValues == null) c.cursorValues = new String[cursorNames.length];
        for (int k = 0; k < cursorNames.length; k++) if (p.captured[k] != null) c.cursorValues[k] = p.captured[k];
      }
      active--;
      c.state = MuxConnection.IDLE;
      if (close) closeChannel(c);
      c.backoffMs = BACKOFF_FIRST_MS;
      if (cfg.type == MuxConfig.Type.PULL) schedule(c, cfg.pullIntervalMs); else startRequest(c);
      return;
    }
    String failure = httpOk ? "" : "HTTP status " + p.status + (p.reason.isEmpty() ? "" : " " + p.reason)
        + (ws() ? " (not 101 Switching Protocols)" : "");
    writeEnd(c, p.lastMicros, String.valueOf(p.status), httpOk, p.reason, failure);
    if (close) closeChannel(c);
    if (!httpOk) {
      backOff(c);
      return;
    }
    c.backoffMs = BACKOFF_FIRST_MS;
    schedule(c, sse() ? retryMs(c) : cfg.wsRetryMs);
  }

  // The duration is over (a target run): every open sample ends ok with END_OF_TEST, every channel closes.
  private void endOfTest() {
    long now = PushClient.nowMicros();
    for (int j = 0; j < nextOpen; j++) {
      MuxConnection c = conns[j];
      if (c == null) continue;
      if (c.sampleOpen) {
        if (c.inFlight()) breakOff(c);
        // a poll waiting on its next answer ends with the status of the last one its subscription got
        int status = c.parser.status >= 0 ? c.parser.status : c.lastStatus;
        writeEnd(c, now, status >= 0 ? String.valueOf(status) : "", true, END_OF_TEST, "");
      }
      closeChannel(c);
    }
    timers.clear();
  }

  // A request failed on the network (or timed out): E line with the exception, the connection closed, the
  // next attempt after the backoff. A kept-alive connection that failed before any answer byte is replaced
  // once, under the same sample.
  private void failed(MuxConnection c, IOException e) {
    breakOff(c);
    closeChannel(c);
    if (c.reused && !c.parser.anyBytes() && !(e instanceof SocketTimeoutException)) {
      startAnswer(c);
      c.reused = false;
      connect(c);
      return;
    }
    String message = "Non HTTP response message: " + e.getMessage();
    String kind = TlsLink.failureKind(e);
    if (kind != null) {
      if (iv.tlsFailures == null) iv.tlsFailures = new java.util.TreeMap<>();
      iv.tlsFailures.merge(kind, 1, Integer::sum);
    }
    writeEnd(c, PushClient.nowMicros(), "Non HTTP response code: " + e.getClass().getName(), false, message, kind != null ? kind : e.toString());
    backOff(c);
  }

  // The answer broke off: what was read of its last record is cut (a WebSocket stream's: of its last message).
  private void breakOff(MuxConnection c) {
    c.parser.abort();
    if (c.frames != null) {
      c.parser.cutBytes = c.frames.partialBytes();
      c.frames = null;
    }
  }

  // The connection's next attempt after its backoff, which doubles up to BACKOFF_MAX_MS (counted); a pull
  // waits at least its pull interval, an SSE stream at least its retry, a WebSocket stream its reconnection time.
  private void backOff(MuxConnection c) {
    iv.backoffs++;
    long floor = cfg.type == MuxConfig.Type.PULL ? cfg.pullIntervalMs : sse() ? retryMs(c)
        : ws() || (target != null && cfg.type == MuxConfig.Type.COMET) ? cfg.wsRetryMs : 0;
    schedule(c, Math.max(c.backoffMs, floor));
    c.backoffMs = Math.min(BACKOFF_MAX_MS, c.backoffMs * 2);
  }

  // The sample's E line. The parser's counts are the request's in flight; a target poll's sample adds those
  // of its answers already ended, and its headers µs is its first answer's.
  private void writeEnd(MuxConnection c, long micros, String code, boolean ok, String message, String failure) {
    AnswerParser p = c.parser;
    boolean inFlight = c.inFlight();
    if (batch != null) {
      int records = c.doneRecords + (inFlight ? p.records : 0);
      long bodyBytes = c.doneBodyBytes + (inFlight ? p.bodyBytes : 0);
      long headers = c.firstHeadersMicros != 0 ? c.firstHeadersMicros : inFlight ? p.headersMicros : 0;
      batch.end(micros, c.id, code, ok, records, bodyBytes, inFlight ? p.cutBytes : 0, c.sendMicros, message, failure, headers);
    }
    c.sampleOpen = false;
    if (inFlight) active--;
    iv.answers++;
    if (!ok) {
      iv.errors++;
      if (iv.firstFailure == null) iv.firstFailure = failure;
    }
    c.state = MuxConnection.IDLE;
  }

  private void schedule(MuxConnection c, long delayMs) {
    long at = mono() + delayMs;
    if (at >= endAt || stopRequested) {   // the next request would start after the duration
      c.state = MuxConnection.IDLE;
      closeChannel(c);
      return;
    }
    c.state = MuxConnection.WAITING;
    c.wakeAt = at;
    timers.add(c);
  }

  private void closeChannel(MuxConnection c) {
    if (c.channel == null) return;
    if (c.key != null) c.key.cancel();
    if (c.tls != null) {
      c.tls.close();   // close_notify offered, the channel closed
      c.tls = null;
    } else {
      try {
        c.channel.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
    c.channel = null;
    c.key = null;
    openChannels--;
  }

  private void closeIdle() {
    for (int j = 0; j < nextOpen; j++) {
      if (conns[j] != null && !conns[j].inFlight()) closeChannel(conns[j]);
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
        writeEnd(c, PushClient.nowMicros(), "Non HTTP response code: " + e.getClass().getName(), false,
            "Non HTTP response message: " + why, e.toString());
      }
      closeChannel(c);
    }
    timers.clear();
  }

  /** Ends what is still in flight ("engine stopped"), closes every channel and the selector. */
  @Override
  public void close() {
    iv = new Interval();   // the last summary was returned: what ends now is in the log only
    endAll("engine stopped");
    submitLines();
    finished = true;
    try {
      selector.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  private static long mono() {
    return System.nanoTime() / 1_000_000;
  }
}
