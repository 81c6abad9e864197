package pushbench.jmeter;

// The connection states of one mux thread's engine (MuxEngine's header states the rules): each MuxConnection
// is driven here from its request to its answer's end, per transport: the request (its bytes and the
// parser's setup from MuxRequests), the connect, the TLS handshake (TlsLink), the write, the reads
// (AnswerParser; after a WebSocket upgrade, WsFrames), the outcome and E line, the backoff and the next
// request. Owns the thread's channels, stream log batch, read buffer and requests in flight; MuxEngine's
// selector loop hands it the ready keys and the due connections, and keeps the timers (MuxEngine.schedule)
// and the interval's counters.

import java.io.EOFException;
import java.io.IOException;
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

final class MuxStates {
  private static final int READS_PER_WAKEUP = 4;
  private static final byte[] NOTHING = new byte[0];

  private final MuxEngine engine;
  private final MuxConfig cfg;
  private final StreamLog log;
  private final StreamLog.Batch batch;
  private final Selector selector;
  private final ByteBuffer readBuffer = ByteBuffer.allocate(MuxEngine.READ_BUFFER);
  /** TLS: the subscriptions' settings (null: plain TCP) and this thread's scratch buffers. */
  private final TlsConfig tls;
  private final TlsLink.Scratch tlsScratch = new TlsLink.Scratch();
  /** TLS connections whose read stopped with whole records left (TlsLink.more): read before the next select. */
  private final java.util.ArrayDeque<MuxConnection> pendingReads = new java.util.ArrayDeque<>();
  private final InetSocketAddress address;
  private final MuxRequests requests;  // what each request sends, how its answer is read
  private final TargetSpec target;     // a target run's spec; null: the built-in protocol
  private final TripSample trips;      // the timed sample of this thread's messages (the summary's trip p99)
  private int active;                  // requests in flight
  private int openChannels;
  private long localIds;

  /** engine: the loop these connections run in; log may be null. */
  MuxStates(MuxEngine engine, MuxConfig cfg, Selector selector, StreamLog log) {
    this.engine = engine;
    this.cfg = cfg;
    this.selector = selector;
    this.log = log;
    this.batch = log == null ? null : log.batch();
    this.address = new InetSocketAddress(cfg.host, cfg.port);
    this.target = cfg.target;
    this.tls = target == null ? cfg.tls : target.subscribeUrl.tls() ? target.tls : null;   // built-in: run.sh --tls
    this.requests = new MuxRequests(cfg);
    this.trips = target != null ? TripSample.target(target.sentUsRule, cfg.summaryIntervalMs) : TripSample.builtIn(cfg.summaryIntervalMs);
  }

  /** This thread's timed sample of messages (docs/engine.md "Sampled trip time"). */
  TripSample trips() { return trips; }

  boolean checksTimeout() { return cfg.failOnTimeout; }
  /** A target run's spec; null: the built-in protocol. */
  TargetSpec target() { return target; }
  private boolean sse() { return cfg.type == MuxConfig.Type.SSE; }
  private boolean ws() { return cfg.type == MuxConfig.Type.WS; }
  /** WS: the subscription's event names, in its order. */
  byte[][] wsNames() { return requests.wsNames; }
  /** Requests in flight. */
  int active() { return active; }
  /** Connections with an open channel. */
  int openChannels() { return openChannels; }

  /** Connection i opened: its first request started. */
  MuxConnection open(int index) {
    MuxConnection c = new MuxConnection(this, index);
    c.backoffMs = MuxEngine.BACKOFF_FIRST_MS;
    if (cfg.type == MuxConfig.Type.PULL && target == null) c.cursor = "{}";
    startRequest(c);
    return c;
  }

  // An SSE connection's reconnection time: the server's retry, else the default.
  private long retryMs(MuxConnection c) {
    return c.retryMs >= 0 ? c.retryMs : MuxConfig.SSE_RETRY_MS;
  }

  // A stream is open once its 200 head was read (WebSocket: once the upgrade was accepted).
  boolean streamOpen(MuxConnection c) {
    return c.state == MuxConnection.READING && (ws() ? c.frames != null : c.parser.headersMicros > 0 && c.parser.status == 200);
  }

  void drop(MuxConnection c) {
    breakOff(c);
    engine.iv.churned++;
    writeEnd(c, PushClient.nowMicros(), ws() ? "101" : String.valueOf(c.parser.status), true, MuxEngine.CHURNED, "");
    closeChannel(c);
    engine.schedule(c, ws() ? cfg.wsRetryMs : retryMs(c));
  }

  /** TLS connections wait with records their links hold (TlsLink.more): the next select must not wait. */
  boolean readsPending() { return !pendingReads.isEmpty(); }

  // TLS records left in their links when the read buffer was full (TlsLink.more): read now.
  void readPending() {
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

  /** Hands the stream log batch to the writer when due (StreamLog.Batch.submitIfDue); nowMs monotonic. */
  void submitLinesIfDue(long nowMs) {
    if (batch != null) batch.submitIfDue(nowMs);
  }

  /** When the batch falls due by age (StreamLog.Batch.dueAtMs), monotonic ms; Long.MAX_VALUE: not by age. */
  long linesDueAtMs() {
    return batch != null ? batch.dueAtMs() : Long.MAX_VALUE;
  }

  /** Hands what the batch holds to the writer now (an interval's or the engine's end). */
  void submitLines() {
    if (batch != null && batch.size() > 0) batch.submit();
  }

  // ---- requests ----------------------------------------------------------------------------------------------

  void startRequest(MuxConnection c) {
    if (engine.noNewRequests(MuxEngine.mono())) {   // no new request after the duration
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
    c.request = requests.next(c);
    requests.startAnswer(c);
    active++;
    if (c.channel != null) {
      c.reused = true;
      beginSend(c);
    } else {
      c.reused = false;
      connect(c);
    }
  }

  private void connect(MuxConnection c) {
    c.state = MuxConnection.CONNECTING;
    c.since = MuxEngine.mono();
    if (!c.connectedOnce) c.connectMicros = PushClient.nowMicros();
    try {
      if (address.isUnresolved()) throw new UnknownHostException(cfg.host);
      boolean bound = c.closeAnnounced && tls == null;   // a plain reconnect after an announced close: a port of Dial's, reset on every close
      c.closeAnnounced = false;
      SocketChannel ch = bound ? Dial.reconnect(address, Dial.PORTS) : Dial.open(address);
      c.channel = ch;
      openChannels++;
      boolean now = bound ? ch.isConnected() : Dial.connect(ch, address);   // on loopback established on return: no OP_CONNECT round trip
      c.key = ch.register(selector, now ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, c);
      if (now) connected(c);
    } catch (IOException e) {
      failed(c, e);
    } catch (UnresolvedAddressException e) {
      failed(c, new UnknownHostException(cfg.host));
    }
  }

  private void connected(MuxConnection c) throws IOException {
    if (!Dial.finishConnect(c.channel)) return;
    engine.iv.opened++;
    if (!c.connectedOnce) {   // the C line: the connection's first connect completed (connections opened per second)
      c.connectedOnce = true;
      long micros = PushClient.nowMicros();
      if (batch != null) batch.connected(micros, c.id, micros - c.connectMicros);
    }
    if (c.key.interestOps() != SelectionKey.OP_READ) c.key.interestOps(SelectionKey.OP_READ);
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
    engine.iv.tlsHandshakes++;
    engine.iv.tlsHandshakeMicros += us;
    engine.iv.tlsHandshakeMaxMicros = Math.max(engine.iv.tlsHandshakeMaxMicros, us);
    if (c.tls.resumed()) engine.iv.tlsResumed++;
    c.key.interestOps(SelectionKey.OP_READ);
    beginSend(c);
  }

  private void beginSend(MuxConnection c) {
    c.state = MuxConnection.SENDING;
    c.since = MuxEngine.mono();
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
    engine.iv.sentBytes += n;
    if (n > 0) c.since = MuxEngine.mono();
    boolean all = c.written == c.request.length && (c.tls == null || c.tls.flushed());
    if (all && c.state == MuxConnection.SENDING) c.state = MuxConnection.READING;
    if (all && ws()) {   // each WS request and frame is its connection's own: not kept once written
      c.request = NOTHING;
      c.written = 0;
    }
    c.key.interestOps(all ? SelectionKey.OP_READ : SelectionKey.OP_READ | SelectionKey.OP_WRITE);
  }

  // ---- events ------------------------------------------------------------------------------------------------

  void onKey(SelectionKey k) {
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
      engine.iv.bytes += n;
      if (!c.inFlight()) {   // an idle connection the server writes to: not ours to guess at
        closeChannel(c);
        return;
      }
      c.since = MuxEngine.mono();
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

  // A record (a target's message) arrived at micros: counted, offered to the timed sample, a target poll's
  // {{cursor}} taken from it (TargetSpec.cursorOf: kept unless the rule matched), logged.
  void onRecord(MuxConnection c, long micros, byte[] b, int off, int len) {
    engine.iv.records++;
    trips.offer(micros, b, off, len);
    if (target != null && target.cursorRule != null) {
      String cursor = target.cursorOf(b, off, len);
      if (cursor != null) c.messageCursor = cursor;
    }
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
    byte[] f = requests.frame(opcode, payload);
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
    String failure = (flags & MuxConnection.HAS_ERROR) != 0 ? MuxEngine.NOT_ERROR
        : (flags & MuxConnection.HAS_TIMEOUT) != 0 ? MuxEngine.NOT_TIMEOUT : normal ? "" : closeText;
    writeEnd(c, c.parser.lastMicros, "101", failure.isEmpty(), closeText, failure);
    closeChannel(c);
    if (!normal || (flags & MuxConnection.HAS_ERROR) != 0) {
      backOff(c);
      return;
    }
    c.backoffMs = MuxEngine.BACKOFF_FIRST_MS;
    engine.schedule(c, cfg.wsRetryMs);
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
    if ((flags & MuxConnection.HAS_ERROR) != 0) failure = MuxEngine.NOT_ERROR;
    else if ((flags & MuxConnection.HAS_TIMEOUT) != 0) failure = MuxEngine.NOT_TIMEOUT;
    else if (!httpOk) failure = MuxEngine.httpStatusFailure(p.status, p.reason)
        + (ws() ? " (not 101 Switching Protocols)" : "");
    else failure = "";
    boolean ok = failure.isEmpty();
    boolean close = mustClose || p.closeAfter || c.state != MuxConnection.READING || ws();   // answered mid-request
    writeEnd(c, p.lastMicros, String.valueOf(p.status), ok, p.reason, failure);
    if (close) closeAnswered(c);
    if (!httpOk || (flags & MuxConnection.HAS_ERROR) != 0) {   // refused by the server: back off, do not spin
      backOff(c);
      return;
    }
    c.backoffMs = MuxEngine.BACKOFF_FIRST_MS;
    if (cfg.type == MuxConfig.Type.PULL) {
      engine.schedule(c, cfg.pullIntervalMs);
    } else if (sse()) {
      engine.schedule(c, retryMs(c));
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
      requests.keepCursor(c);
      active--;
      c.state = MuxConnection.IDLE;
      if (close) closeAnswered(c);
      c.backoffMs = MuxEngine.BACKOFF_FIRST_MS;
      if (cfg.type == MuxConfig.Type.PULL) engine.schedule(c, cfg.pullIntervalMs); else startRequest(c);
      return;
    }
    String failure = httpOk ? "" : MuxEngine.httpStatusFailure(p.status, p.reason)
        + (ws() ? " (not 101 Switching Protocols)" : "");
    writeEnd(c, p.lastMicros, String.valueOf(p.status), httpOk, p.reason, failure);
    if (close) closeAnswered(c);
    if (!httpOk) {
      backOff(c);
      return;
    }
    c.backoffMs = MuxEngine.BACKOFF_FIRST_MS;
    engine.schedule(c, sse() ? retryMs(c) : cfg.wsRetryMs);
  }

  // A request failed on the network (or timed out): E line with the exception, the connection closed, the
  // next attempt after the backoff. A kept-alive connection that failed before any answer byte is replaced
  // once, under the same sample.
  void failed(MuxConnection c, IOException e) {
    breakOff(c);
    closeChannel(c);
    if (c.reused && !c.parser.anyBytes() && !(e instanceof SocketTimeoutException)) {
      requests.startAnswer(c);
      c.reused = false;
      connect(c);
      return;
    }
    String message = "Non HTTP response message: " + e.getMessage();
    String kind = TlsLink.failureKind(e);
    if (kind != null) {
      if (engine.iv.tlsFailures == null) engine.iv.tlsFailures = new java.util.TreeMap<>();
      engine.iv.tlsFailures.merge(kind, 1, Integer::sum);
    }
    writeEnd(c, PushClient.nowMicros(), "Non HTTP response code: " + e.getClass().getName(), false, message, kind != null ? kind : e.toString());
    backOff(c);
  }

  // The answer broke off: what was read of its last record is cut (a WebSocket stream's: of its last message).
  void breakOff(MuxConnection c) {
    c.parser.abort();
    if (c.frames != null) {
      c.parser.cutBytes = c.frames.partialBytes();
      c.frames = null;
    }
  }

  // The connection's next attempt after its backoff, which doubles up to MuxEngine.BACKOFF_MAX_MS (counted); a pull
  // waits at least its pull interval, an SSE stream at least its retry, a WebSocket stream its reconnection time.
  private void backOff(MuxConnection c) {
    engine.iv.backoffs++;
    long floor = cfg.type == MuxConfig.Type.PULL ? cfg.pullIntervalMs : sse() ? retryMs(c)
        : ws() || (target != null && cfg.type == MuxConfig.Type.COMET) ? cfg.wsRetryMs : 0;
    engine.schedule(c, Math.max(c.backoffMs, floor));
    c.backoffMs = Math.min(MuxEngine.BACKOFF_MAX_MS, c.backoffMs * 2);
  }

  // The sample's E line. The parser's counts are the request's in flight; a target poll's sample adds those
  // of its answers already ended, and its headers µs is its first answer's.
  void writeEnd(MuxConnection c, long micros, String code, boolean ok, String message, String failure) {
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
    engine.iv.answers++;
    if (!ok) {
      engine.iv.errors++;
      if (engine.iv.firstFailure == null) engine.iv.firstFailure = failure;
    }
    c.state = MuxConnection.IDLE;
  }

  // A connection whose answer was read to its end and which is not kept: a plain (non-TLS) one whose server
  // announced the close (`Connection: close`, or HTTP/1.0) is reset (SO_LINGER 0) rather than closed, so no
  // TIME_WAIT is left on the engine's side. Every answer of a server that closes after each one (Tomcat 6's
  // long polls) costs a new connection to the same address and port, and the kernel's search for a free
  // source port among thousands in TIME_WAIT would otherwise be most of the engine's CPU (docs/engine.md
  // "Tomcat 6 long polls at 10,000 and 15,000"). The answer is complete before the reset; the server reads an
  // end of connection either way. TLS connections close with their close_notify. (A plain reconnect's socket
  // has SO_LINGER 0 from its open: Dial.reconnect.)
  private void closeAnswered(MuxConnection c) {
    c.closeAnnounced = c.parser.closeAfter;
    if (c.parser.closeAfter && c.tls == null && c.channel != null) {
      try {
        c.channel.setOption(StandardSocketOptions.SO_LINGER, 0);
      } catch (IOException ignored) {
        // closed normally then
      }
    }
    closeChannel(c);
  }

  void closeChannel(MuxConnection c) {
    if (c.channel == null) return;
    if (c.key != null) c.key.cancel();
    TlsLink.close(c.tls, c.channel);
    c.tls = null;
    c.channel = null;
    c.key = null;
    openChannels--;
  }

}
