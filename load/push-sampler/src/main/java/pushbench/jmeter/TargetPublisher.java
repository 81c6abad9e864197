package pushbench.jmeter;

// The publisher of a target run (issue #47; docs/targets.md "The run"; docs/engine.md "Target mode"): one
// per engine (MuxSampler starts it once, whatever its thread count), on a thread of its own with its own
// java.nio Selector, one kept-alive HTTP/1.1 connection per channel (a new one when the server closed it).
// Rules:
// - channel c's k-th publish (seq k, from 1) is due at start + ((k - 1) + c / channels) / rate s: the
//   channels spread over the first 1/rate s; only publishes due before start + duration - drain are sent;
// - a channel has one publish in flight at most: one due while the previous is unanswered goes out when that
//   answer ends, late but never skipped (the achieved rate is measured from the log);
// - each publish's request (TargetSpec.publishRequest: method, URL, headers and body with {{channel}},
//   {{seq}}, {{sentUs}}, {{pad:N}} filled, Content-Length set) is built just before its first byte is
//   written, {{sentUs}} being PushClient.nowMicros() (the stream log's clock) at that moment;
// - each publish is one stream-log sample: B (thread `Publish <c>`, label `publish <seq>`) when it begins
//   (before a connect, if one is needed), E when its answer ends: code, ok (a 2xx), 0 records, body bytes,
//   0 cut, sent µs = the {{sentUs}} it sent, message (the reason), failure ("" or why), headers µs;
// - a network error, a connect longer than connectTimeout or a silence longer than responseTimeout fails
//   that publish (an E line with the exception, as MuxEngine writes it) and closes its connection; a publish
//   on a kept-alive connection that fails before any answer byte (the server closed it while idle) is sent
//   once more on a new connection under the same sample, re-stamped;
// - at start + duration whatever is still in flight ends failed ("end of test") and the thread ends; it
//   ends earlier once the window is over and every answer is in, and at once on stop() (testEnded,
//   interrupt), which joins it: nothing outlives the test;
// - an https:// publish URL (issue #49): each connection handshakes (TlsLink, the spec's TlsConfig) after
//   its TCP connect and before its publish's first byte, under the connect timeout; a TLS failure's E line
//   names its kind (TlsLink.failureKind).

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicLong;

final class TargetPublisher implements Closeable {
  /** The thread name of channel c's samples is this and c. */
  static final String THREAD_PREFIX = "Publish ";
  static final String END_OF_TEST = "end of test";
  private static final long SWEEP_EVERY_MS = 50;
  private static final long JOIN_MS = 5000;

  // States of a channel's publish.
  private static final int IDLE = 0;
  private static final int CONNECTING = 1;
  private static final int SENDING = 2;
  private static final int READING = 3;

  /** One channel: its connection and its publish in flight. */
  private static final class Pub {
    final int channel;
    final AnswerParser parser = new AnswerParser(false);
    long seq;          // the publish in flight, or the last one
    long dueNs;
    SocketChannel ch;
    TlsLink tls;       // TLS over ch (an https:// publish URL); null: plain TCP
    SelectionKey key;
    int state = IDLE;
    byte[] request;
    int written;
    long id;
    long sentUs;
    long sinceMs;      // the silence clock: connect start, bytes written or read
    boolean reused;

    Pub(int channel) { this.channel = channel; }
  }

  private final TargetSpec spec;
  private final int connectTimeoutMs;
  private final int responseTimeoutMs;
  private final long startNs;
  private final long windowEndNs;      // no publish is due from here on
  private final long endNs;            // whatever is in flight ends failed here
  private final StreamLog log;
  private final StreamLog.Batch batch;
  private final Selector selector;
  private final InetSocketAddress address;
  private final Pub[] pubs;
  private final PriorityQueue<Pub> due = new PriorityQueue<>((a, b) -> Long.compare(a.dueNs, b.dueNs));
  private final ByteBuffer readBuffer = ByteBuffer.allocate(MuxEngine.READ_BUFFER);
  private final TlsConfig tls;
  private final TlsLink.Scratch tlsScratch = new TlsLink.Scratch();
  private final Thread thread;
  private int inFlight;
  private long localIds;
  private volatile boolean stopRequested;
  /** Publishes ended, and those that failed (for tests and the engine's log). */
  final AtomicLong ended = new AtomicLong();
  final AtomicLong failed = new AtomicLong();

  /**
   * start: the engine-wide start on System.nanoTime()'s clock in ms (MuxSampler's); durationMs: the run's;
   * timeouts in ms (0: none). log may be null. The thread starts with start().
   */
  TargetPublisher(TargetSpec spec, long start, long durationMs, int connectTimeoutMs, int responseTimeoutMs, StreamLog log)
      throws IOException {
    this.spec = spec;
    this.connectTimeoutMs = connectTimeoutMs;
    this.responseTimeoutMs = responseTimeoutMs;
    this.startNs = start * 1_000_000;
    this.windowEndNs = startNs + (durationMs - spec.drainMs) * 1_000_000;
    this.endNs = startNs + durationMs * 1_000_000;
    this.log = log;
    this.batch = log == null ? null : log.batch();
    this.address = new InetSocketAddress(spec.publishUrl.host(), spec.publishUrl.port());
    this.tls = spec.publishUrl.tls() ? spec.tls : null;
    this.pubs = new Pub[spec.channels];
    for (int c = 0; c < pubs.length; c++) {
      pubs[c] = new Pub(c);
      queueNext(pubs[c]);
    }
    this.selector = Selector.open();
    this.thread = new Thread(this::loop, "pushbench-publisher " + spec.name);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Ends the publishing now (what is in flight fails, "engine stopped") and waits for the thread. */
  @Override
  public void close() {
    stopRequested = true;
    selector.wakeup();
    if (Thread.currentThread() == thread) return;
    try {
      thread.join(JOIN_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The thread ended (or never started). */
  boolean done() {
    return !thread.isAlive();
  }

  /** Waits up to ms for the thread's end; whether it ended. */
  boolean await(long ms) throws InterruptedException {
    thread.join(ms);
    return !thread.isAlive();
  }

  /** When channel c's publish k is due, System.nanoTime()'s clock. */
  long dueNs(int c, long k) {
    return startNs + (long) (((k - 1) + (double) c / spec.channels) * 1e9 / spec.rate);
  }

  // The channel's next publish goes into the queue when it is due within the window.
  private void queueNext(Pub p) {
    long at = dueNs(p.channel, p.seq + 1);
    if (at >= windowEndNs) return;
    p.dueNs = at;
    due.add(p);
  }

  // ---- the loop -----------------------------------------------------------------------------------------

  private void loop() {
    long nextSweep = 0;
    try {
      while (true) {
        long now = System.nanoTime();
        if (stopRequested) {
          endInFlight("engine stopped");
          break;
        }
        if (now >= endNs) {
          endInFlight(END_OF_TEST);
          break;
        }
        while (!due.isEmpty() && due.peek().dueNs <= now) begin(due.poll());
        if (due.isEmpty() && inFlight == 0) break;   // the window is over and every answer is in
        long nowMs = now / 1_000_000;
        if (nowMs >= nextSweep) {
          sweep(nowMs);
          nextSweep = nowMs + SWEEP_EVERY_MS;
        }
        long next = Math.min(endNs, due.isEmpty() ? Long.MAX_VALUE : due.peek().dueNs);
        long waitMs = Math.min(SWEEP_EVERY_MS, Math.max(1, (next - System.nanoTime() + 999_999) / 1_000_000));
        selector.select(this::onKey, waitMs);
        submit();
      }
    } catch (IOException | RuntimeException e) {
      endInFlight("publisher failed: " + e);
    } finally {
      for (Pub p : pubs) closeChannel(p);
      submit();
      try {
        selector.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }

  private void submit() {
    if (batch != null && batch.size() > 0) batch.submit();
  }

  // Connect and silence timeouts of the publishes in flight.
  private void sweep(long nowMs) {
    for (Pub p : pubs) {
      if (p.state == IDLE) continue;
      int limit = p.state == CONNECTING ? connectTimeoutMs : responseTimeoutMs;
      if (limit > 0 && nowMs - p.sinceMs >= limit) {
        failed(p, new SocketTimeoutException(p.state != CONNECTING ? "Read timed out"
            : p.tls != null ? "TLS handshake timed out" : "Connect timed out"));
      }
    }
  }

  // ---- a publish ----------------------------------------------------------------------------------------

  private void begin(Pub p) {
    p.seq++;
    p.id = log != null ? log.nextSampleId() : ++localIds;
    if (batch != null) batch.begin(PushClient.nowMicros(), p.id, THREAD_PREFIX, p.channel, "publish " + p.seq);
    p.parser.start(null, false);
    p.sentUs = 0;
    inFlight++;
    if (p.ch != null) {
      p.reused = true;
      send(p);
    } else {
      p.reused = false;
      connect(p);
    }
  }

  private void connect(Pub p) {
    p.state = CONNECTING;
    p.sinceMs = System.nanoTime() / 1_000_000;
    try {
      if (address.isUnresolved()) throw new UnknownHostException(address.getHostString());
      SocketChannel ch = Dial.open(address);
      p.ch = ch;
      boolean now = Dial.connect(ch, address);
      p.key = ch.register(selector, now ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, p);
      if (now) connected(p);
    } catch (IOException e) {
      failed(p, e);
    } catch (UnresolvedAddressException e) {
      failed(p, new UnknownHostException(address.getHostString()));
    }
  }

  private void connected(Pub p) throws IOException {
    if (!Dial.finishConnect(p.ch)) return;
    p.key.interestOps(SelectionKey.OP_READ);
    if (tls != null) {
      p.tls = new TlsLink(tls.engine(address.getHostString(), address.getPort()), p.ch, tlsScratch);
      handshake(p);
      return;
    }
    send(p);
  }

  private void handshake(Pub p) throws IOException {
    if (!p.tls.handshake()) {
      p.key.interestOps(SelectionKey.OP_READ | (p.tls.wantsWrite() ? SelectionKey.OP_WRITE : 0));
      return;
    }
    p.key.interestOps(SelectionKey.OP_READ);
    send(p);
  }

  // The request built and stamped just before its first byte is written.
  private void send(Pub p) {
    p.state = SENDING;
    p.sinceMs = System.nanoTime() / 1_000_000;
    p.sentUs = PushClient.nowMicros();
    p.request = spec.publishRequest(p.channel, p.seq, p.sentUs);
    p.written = 0;
    try {
      writeMore(p);
    } catch (IOException e) {
      failed(p, e);
    }
  }

  private void writeMore(Pub p) throws IOException {
    ByteBuffer out = ByteBuffer.wrap(p.request, p.written, p.request.length - p.written);
    int n = p.tls != null ? p.tls.write(out) : p.ch.write(out);
    p.written += n;
    if (n > 0) p.sinceMs = System.nanoTime() / 1_000_000;
    boolean all = p.written == p.request.length && (p.tls == null || p.tls.flushed());
    if (all && p.state == SENDING) p.state = READING;
    p.key.interestOps(all ? SelectionKey.OP_READ : SelectionKey.OP_READ | SelectionKey.OP_WRITE);
  }

  private void onKey(SelectionKey k) {
    Pub p = (Pub) k.attachment();
    try {
      if (!k.isValid()) return;
      int ready = k.readyOps();
      if ((ready & SelectionKey.OP_CONNECT) != 0) {
        connected(p);
        return;
      }
      if (p.state == CONNECTING && p.tls != null) {
        handshake(p);
        return;
      }
      if ((ready & SelectionKey.OP_WRITE) != 0 && p.state == SENDING) writeMore(p);
      if ((ready & SelectionKey.OP_READ) != 0 && k.isValid()) readable(p);
    } catch (CancelledKeyException e) {
      // closed by an earlier event of this wake-up
    } catch (IOException e) {
      if (p.state != IDLE) failed(p, e); else closeChannel(p);
    }
  }

  private void readable(Pub p) throws IOException {
    do {
      if (!readOnce(p)) return;
    } while (p.tls != null && p.tls.more());
  }

  // One read of p's answer: false when nothing more is to be read now.
  private boolean readOnce(Pub p) throws IOException {
    readBuffer.clear();
    int n = p.tls != null ? p.tls.read(readBuffer) : p.ch.read(readBuffer);
    if (n == 0) return false;
    if (p.state == IDLE) {   // an idle connection closed (or written to) by the server: a new one next time
      closeChannel(p);
      return false;
    }
    if (n < 0) {
      p.parser.endOfInput(PushClient.nowMicros());   // a body read to the close ends here; else EOFException
      answered(p, true);
      return false;
    }
    p.sinceMs = System.nanoTime() / 1_000_000;
    int used = p.parser.feed(readBuffer.array(), 0, n, PushClient.nowMicros());
    if (p.parser.done()) {
      answered(p, used < n);
      return false;
    }
    return true;
  }

  // The answer was read to its end: its E line, the connection kept unless it must close, the next publish.
  private void answered(Pub p, boolean mustClose) {
    AnswerParser a = p.parser;
    boolean ok = a.status >= 200 && a.status <= 299;
    String failure = ok ? "" : MuxEngine.httpStatusFailure(a.status, a.reason);
    end(p, a.lastMicros, String.valueOf(a.status), ok, a.reason, failure);
    if (mustClose || a.closeAfter || p.state != READING) closeChannel(p);
    idle(p);
  }

  // A network error or timeout: a stale kept-alive connection is replaced once, else the publish failed.
  private void failed(Pub p, IOException e) {
    p.parser.abort();
    closeChannel(p);
    if (p.reused && !p.parser.anyBytes() && !(e instanceof SocketTimeoutException)) {
      p.parser.start(null, false);
      p.reused = false;
      connect(p);
      return;
    }
    String kind = TlsLink.failureKind(e);
    end(p, PushClient.nowMicros(), "Non HTTP response code: " + e.getClass().getName(), false,
        "Non HTTP response message: " + e.getMessage(), kind != null ? kind : e.toString());
    idle(p);
  }

  private void end(Pub p, long micros, String code, boolean ok, String message, String failure) {
    if (batch != null) {
      batch.end(micros, p.id, code, ok, 0, p.parser.bodyBytes, 0, p.sentUs, message, failure, p.parser.headersMicros);
    }
    ended.incrementAndGet();
    if (!ok) failed.incrementAndGet();
    inFlight--;
  }

  private void idle(Pub p) {
    p.state = IDLE;
    p.request = null;
    queueNext(p);
  }

  // Whatever is in flight ends failed with this message; nothing is due any more.
  private void endInFlight(String why) {
    for (Pub p : pubs) {
      if (p.state == IDLE) continue;
      p.parser.abort();
      InterruptedIOException e = new InterruptedIOException(why);
      end(p, PushClient.nowMicros(), "Non HTTP response code: " + e.getClass().getName(), false,
          "Non HTTP response message: " + why, e.toString());
      p.state = IDLE;
      closeChannel(p);
    }
    due.clear();
  }

  private void closeChannel(Pub p) {
    if (p.ch == null) return;
    if (p.key != null) p.key.cancel();
    TlsLink.close(p.tls, p.ch);
    p.tls = null;
    p.ch = null;
    p.key = null;
  }
}
