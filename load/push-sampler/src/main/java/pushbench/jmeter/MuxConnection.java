package pushbench.jmeter;

// One connection of the multiplexing engine (MuxEngine) and the answer in flight on it: only state, so
// thousands fit in a small heap. The body is not kept: every record goes to the engine (stream log) as the
// parser cuts it, and the plan's two assertions are decided on the fly from two flags, what the first
// record held and what the latest one held (the per-thread sampler's digest is the first and, from two
// records on, the last record, each up to PushClient.KEEP_LINE bytes). A pull connection also keeps the
// cursor its next request sends; an SSE connection the last event id it got (its reconnection's
// Last-Event-ID, kept across its requests as EventSource keeps it) and the retry the server gave. A WS
// connection (issue #38) reads its frames with a WsFrames of its own while a stream is open, and keeps the
// last cycle per subscribed name its streams got (the cursor its next subscription resumes from).
// In a target run (issue #47) a record is a target's message: no assertion looks at it, and a poll or pull
// subscription is one sample across its answers (its totals kept here) with the cursor headers echoed and
// the {{cursor}} taken from its last message kept here.

import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

final class MuxConnection implements AnswerParser.EventSink, WsFrames.Listener {
  // Flags of a record.
  static final int HAS_ERROR = 1;
  static final int HAS_TIMEOUT = 2;
  private static final byte[] ERROR = "error".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TIMEOUT = "timeout".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CURSOR = "\"cursor\":{".getBytes(StandardCharsets.US_ASCII);

  // States.
  static final int IDLE = 0;         // no request in flight; the channel may be open (kept alive)
  static final int CONNECTING = 1;   // a request waits for its connection
  static final int SENDING = 2;      // the request is being written
  static final int READING = 3;      // the request is written, the answer is being read
  static final int WAITING = 4;      // idle until wakeAt (backoff, pull interval), in the engine's timers

  final MuxStates states;
  /** The engine-wide connection index i (0-based). */
  final int index;
  final AnswerParser parser = new AnswerParser(false);
  /** A target run's connection: its records are checked by no assertion. */
  private final boolean target;
  SocketChannel channel;
  /** TLS over channel (an https:// or wss:// target), from its TCP connect to its close; null: plain TCP. */
  TlsLink tls;
  SelectionKey key;
  int state = IDLE;
  /** Monotonic ms of the latest progress (connect start, bytes written or read): the silence clock. */
  long since;
  long wakeAt;
  int backoffMs;
  /** The request went out on a kept-alive connection (a stale one is replaced once, as PushClient does). */
  boolean reused;
  long id;
  /** The sample (B line) is open: from its B line to its E line, which a target poll's answers share. */
  boolean sampleOpen;
  /** A target poll or pull subscription: records and body bytes of its answers already ended, its first head. */
  int doneRecords;
  long doneBodyBytes;
  long firstHeadersMicros;
  /** A target poll or pull subscription: the status of its last answer that ended (-1: none yet). */
  int lastStatus = -1;
  /** A target poll or pull: the cursor headers' values last received (TargetSpec.cursorFrom order), null: none. */
  String[] cursorValues;
  /** A target poll or pull: the {{cursor}} its spec's rule took from its last message it matched; null: none yet. */
  String messageCursor;
  long beginMicros;
  /** Its last TCP connection ended as its server announced (Connection: close): the next one binds its port (Dial). */
  boolean closeAnnounced;
  /** Its first TCP connect has completed (its C line is written); until then, when that connect began (µs). */
  boolean connectedOnce;
  long connectMicros;
  long sendMicros;
  byte[] request;
  int written;
  int firstFlags;
  int lastFlags;
  /** Pull: the cursor sent next ({} before the first answer), and whether this answer gave one already. */
  String cursor;
  boolean cursorSeen;
  /** SSE: the last event id dispatched (null: none yet), and the server's retry in ms (-1: none yet). */
  byte[] lastEventId;
  int retryMs = -1;
  /** WS: the key of the upgrade in flight (until its 101 is checked), the open stream's frame reader. */
  String wsKey;
  WsFrames frames;
  /** WS: per name of the subscription (MuxConfig.wsEvents order) the last cycle got, -1: none; null: none yet. */
  long[] wsCycles;

  MuxConnection(MuxStates states, int index) {
    this.states = states;
    this.index = index;
    this.target = states.target() != null;
  }

  boolean inFlight() {
    return state == CONNECTING || state == SENDING || state == READING;
  }

  /** Resets the per-answer state for a new request. */
  void startAnswer(boolean headRequest, boolean eventStream) {
    parser.start(this, headRequest, eventStream ? this : null);
    firstFlags = 0;
    lastFlags = 0;
    cursorSeen = false;
    written = 0;
  }

  /** The flags the plan's assertions would see: the first record's and, from two records on, the last's. */
  int digestFlags() {
    return firstFlags | (parser.records >= 2 ? lastFlags : 0);
  }

  @Override
  public void record(long micros, byte[] b, int off, int len) {
    if (target) {
      states.onRecord(this, micros, b, off, len);
      return;
    }
    int flags = flags(b, off, off + Math.min(len, PushClient.KEEP_LINE), states.checksTimeout());
    if (parser.records == 1) firstFlags = flags; else lastFlags = flags;
    if (cursor != null && !cursorSeen) {
      String c = cursorOf(b, off, off + len);
      if (c != null) {
        cursor = c;
        cursorSeen = true;
      }
    }
    states.onRecord(this, micros, b, off, len);
  }

  @Override
  public void eventId(byte[] b, int off, int len) {
    if (AnswerParser.indexOf(b, off, off + len, (byte) '\r') >= 0) return;   // never a header's end
    if (lastEventId == null || lastEventId.length != len) lastEventId = new byte[len];
    System.arraycopy(b, off, lastEventId, 0, len);
  }

  @Override
  public void retry(long ms) {
    retryMs = (int) Math.min(ms, Integer.MAX_VALUE);
  }

  // ---- WebSocket (WsFrames.Listener): a text message is a record as a comet line is ---------------------

  @Override
  public void message(long micros, byte[] b, int off, int len) {
    parser.records++;
    byte[][] names = states.wsNames();
    if (names.length > 0) {
      if (wsCycles == null) {
        wsCycles = new long[names.length];
        java.util.Arrays.fill(wsCycles, -1);
      }
      WsFrames.noteCycle(b, off, len, names, wsCycles);
    }
    record(micros, b, off, len);
  }

  @Override
  public void ping(byte[] payload) throws java.io.IOException {
    states.wsSend(this, WsFrames.PONG, payload);
  }

  @Override
  public void close(int code, String reason) {
    states.wsClosed(this, code, reason);
  }

  /**
   * A record's flags, as the plan's assertions would judge b[from, to): HAS_ERROR when it contains "error",
   * HAS_TIMEOUT when it contains "timeout" and timeout is asked; both words sought in one pass.
   */
  static int flags(byte[] b, int from, int to, boolean timeout) {
    int flags = 0;
    int all = timeout ? HAS_ERROR | HAS_TIMEOUT : HAS_ERROR;
    for (int i = from; i < to && flags != all; i++) {
      byte x = b[i];
      if (x == 'e') {
        if (at(b, i, to, ERROR)) flags |= HAS_ERROR;
      } else if (x == 't' && timeout && at(b, i, to, TIMEOUT)) {
        flags |= HAS_TIMEOUT;
      }
    }
    return flags;
  }

  // b[i, to) starts with word.
  private static boolean at(byte[] b, int i, int to, byte[] word) {
    if (to - i < word.length) return false;
    for (int j = 1; j < word.length; j++) if (b[i + j] != word[j]) return false;
    return true;
  }

  /** The first match of "cursor":(\{[^}]*\}) in b[from, to): the group, or null. */
  static String cursorOf(byte[] b, int from, int to) {
    int last = to - CURSOR.length;
    outer:
    for (int i = from; i <= last; i++) {
      for (int j = 0; j < CURSOR.length; j++) if (b[i + j] != CURSOR[j]) continue outer;
      int open = i + CURSOR.length - 1;
      int close = AnswerParser.indexOf(b, open + 1, to, (byte) '}');
      return close < 0 ? null : new String(b, open, close + 1 - open, StandardCharsets.UTF_8);
    }
    return null;
  }
}
