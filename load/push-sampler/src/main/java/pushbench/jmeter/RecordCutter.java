package pushbench.jmeter;

// The body side of an answer's parse (AnswerParser, which decodes the HTTP framing around it): the bytes of a
// body, as the transfer coding hands them over, cut into records with the stamp of the read that completed
// each, handed to a sink; so the record rules exist once for PushClient and MuxEngine:
// - a record ends at "\n" (the protocol's NDJSON, docs/protocol.md), a trailing "\r" is stripped, empty
//   records are skipped; a last record without "\n" is complete when the body ends cleanly;
// - a record longer than MAX_LINE bytes breaks the answer;
// - a record is copied only when it spans reads (into a buffer allocated then and released after), so a
//   parser waiting for its next bytes holds no buffer;
// - an event stream (the caller asked for one, and the answer's Content-Type is text/event-stream: the
//   protocol's SSE, docs/protocol.md) is cut at blank lines instead, one event per cut (LF or CRLF line
//   ends), and each event is read as the HTML standard's EventSource reads it: a line starting with ":" is a
//   comment, "field: value" (one space after the colon dropped), `data` lines joined are the record
//   (none, or empty: no record; joined by a space, not EventSource's "\n": a record is one line, and the
//   stream log writes a line end inside a field as a space anyway), `id` (without NUL) and `retry` (digits
//   only) go to the EventSink, other fields are ignored; an event the body ends inside (no blank line after
//   it) is not dispatched: its bytes count as cut. Every other answer (an error's JSON body) is cut into
//   records at "\n" as above;
// - a target run's framing (issue #47, docs/targets.md; the caller sets it with frame() after start): CHUNK
//   cuts a chunked body into one message per HTTP chunk (any other body is one message), DELIMITER at each
//   occurrence of the caller's bytes (a delimiter split across reads is found; empty pieces are skipped; a
//   last piece is complete when the body ends cleanly), WHOLE makes the body one message (a poll's answer;
//   an empty body is none). These messages are held whole (up to MAX_LINE) and copied once (but for a WHOLE
//   Content-Length body read in one piece, which goes to the sink from the read's bytes), and keep their
//   bytes as they came (no "\r" stripped); LINES, the default, is the "\n" cut above.

import java.io.IOException;

class RecordCutter {
  /** Longest record (and head line) accepted; a longer one is a broken answer, not a reason to grow. */
  static final int MAX_LINE = 1 << 20;
  private static final byte[] SPACE = {' '};

  // How a body that is not an event stream is cut into records (frame()).
  static final int LINES = 0;
  static final int CHUNK = 1;
  static final int DELIMITER = 2;
  static final int WHOLE = 3;

  long bodyBytes;
  int records;
  /** Bytes of a record the answer broke off inside (set by abort() and a premature end). */
  int cutBytes;

  private PushClient.RecordSink sink;
  private Line pending;              // a record (an event) spanning reads
  private byte[] tail;               // lastBody's last record (a LINES record without "\n", a WHOLE body) in the caller's bytes, for endBody
  private int tailOff;
  private int tailLen;
  private final boolean keepBuffers;
  private EventSink events;          // non-null: the caller asked for an event stream
  private boolean eventStream;       // the answer is one (its head said text/event-stream)
  private int eventLineBytes;        // bytes of the event's current line read so far
  private byte lastBodyByte;         // the body byte before the current read's (a CR ending a line)
  private int framing = LINES;
  private byte[] delimiter;          // DELIMITER: the bytes a message ends at

  /** Receives the fields of an event stream that are not its records: the last event id and retry. */
  interface EventSink extends PushClient.RecordSink {
    /** An event was dispatched with an id field: b[off, off+len) is the new last event id. */
    void eventId(byte[] b, int off, int len);

    /** A retry field: the reconnection time the server asks for, ms. */
    void retry(long ms);
  }

  /** keepBuffers: keep a spanning line's buffer for the next one (one client, few answers held at once). */
  RecordCutter(boolean keepBuffers) {
    this.keepBuffers = keepBuffers;
  }

  // A new body: records go to sink (may be null); events non-null: an event stream is read as one.
  void startBody(PushClient.RecordSink sink, EventSink events) {
    this.sink = sink;
    this.events = events;
    eventStream = false;
    eventLineBytes = 0;
    lastBodyByte = 0;
    framing = LINES;
    bodyBytes = 0;
    records = 0;
    cutBytes = 0;
    pending = kept(pending);
    tail = null;
  }

  /** After start: the body is cut by this framing (LINES, CHUNK, DELIMITER at delimiter's bytes, WHOLE). */
  void frame(int framing, byte[] delimiter) {
    this.framing = framing;
    this.delimiter = delimiter;
  }

  // The head ended with this Content-Type: the body is an event stream if the caller asked for one.
  void bodyType(String contentType) {
    eventStream = events != null && contentType.regionMatches(true, 0, "text/event-stream", 0, 17);
  }

  // A chunk's data ended at stamp: under CHUNK, it is one message.
  void chunkEnded(long stamp) {
    if (framing == CHUNK) piece(stamp);
  }

  // The answer broke off: a partial record is counted as cut and dropped.
  void dropPending() {
    if (pending != null && pending.len > 0) cutBytes = pending.len;
    pending = kept(pending);
  }

  // Body bytes: cut at "\n"; a record lying whole in the caller's bytes goes to the sink from there.
  void body(byte[] b, int off, int len, long stamp) throws IOException {
    if (eventStream) {
      eventBody(b, off, len, stamp);
      return;
    }
    if (framing != LINES) {
      framedBody(b, off, len, stamp);
      return;
    }
    bodyBytes += len;
    int end = off + len;
    int p = off;
    while (p < end) {
      int nl = indexOf(b, p, end, (byte) '\n');
      if (nl < 0) {
        hold(b, p, end);
        return;
      }
      cut(b, p, nl, stamp);
      p = nl + 1;
    }
  }

  // The body's last bytes, its length known (Content-Length), endBody to follow within the same feed: as
  // body(), but what follows the last "\n" (a LINES record without one; a WHOLE body), when it lies whole
  // in these bytes, is kept as a reference to them (tail) for endBody instead of a copy in pending (a
  // pull's or a poll's answer, read in one piece, is not copied at all), so it still reaches the sink after
  // the answer ended, as a held one does.
  void lastBody(byte[] b, int off, int len, long stamp) throws IOException {
    boolean nothingHeld = pending == null || pending.len == 0;
    if (eventStream || framing != LINES && !(framing == WHOLE && nothingHeld)) {
      body(b, off, len, stamp);
      return;
    }
    bodyBytes += len;
    int end = off + len;
    int p = off;
    if (framing == LINES) {
      for (int nl; (nl = indexOf(b, p, end, (byte) '\n')) >= 0; p = nl + 1) cut(b, p, nl, stamp);
      if (p == end) return;
      if (pending != null && pending.len > 0) {
        hold(b, p, end);
        return;
      }
    } else if (len > MAX_LINE) {
      throw new IOException("message longer than " + MAX_LINE + " bytes");
    }
    tail = b;
    tailOff = p;
    tailLen = end - p;
  }

  // A record (an event) ends at b[to]: read from the caller's bytes when it lies whole in them, else joined
  // to its start, held in pending.
  private void cut(byte[] b, int from, int to, long stamp) throws IOException {
    byte[] in = b;
    int off = from;
    int len = to - from;
    if (pending != null && pending.len > 0) {
      appendBounded(pending, b, from, len, eventStream ? "event" : "record");
      in = pending.buf;
      off = 0;
      len = pending.len;
    }
    if (eventStream) event(in, off, len, stamp); else deliver(in, off, len, stamp);
    pending = kept(pending);
  }

  // The start of a record (an event) that the caller's bytes end inside: held until its end comes.
  private void hold(byte[] b, int from, int to) throws IOException {
    if (pending == null) pending = new Line();
    appendBounded(pending, b, from, to - from, eventStream ? "event" : "record");
  }

  // The body ended cleanly at stamp: a last record without "\n" is complete; an event without its blank
  // line is not.
  void endBody(long stamp) {
    if (tail != null) {
      byte[] b = tail;
      tail = null;
      if (framing == LINES) {
        deliver(b, tailOff, tailLen, stamp);
      } else if (tailLen > 0) {
        records++;
        if (sink != null) sink.record(stamp, b, tailOff, tailLen);
      }
      return;
    }
    if (!eventStream && framing != LINES) {
      piece(stamp);
      return;
    }
    if (eventStream && pending != null && pending.len > 0) {
      cutBytes = pending.len;
      pending = kept(pending);
    } else if (pending != null && pending.len > 0) {
      deliver(pending.buf, 0, pending.len, stamp);
      pending = kept(pending);
    }
  }

  // ---- a target's framing (CHUNK, DELIMITER, WHOLE) -------------------------------------------------------

  // Body bytes of a framed body: held until their piece ends (CHUNK, WHOLE), or cut at the delimiter.
  private void framedBody(byte[] b, int off, int len, long stamp) throws IOException {
    bodyBytes += len;
    if (framing != DELIMITER) {
      hold(b, off, off + len);
      return;
    }
    int end = off + len;
    int p = off;
    int m = delimiter.length;
    if (pending != null && pending.len > 0) {   // a delimiter may begin in what is held and end here
      for (int k = Math.min(m - 1, pending.len); k >= 1; k--) {
        if (m - k <= len && endsWith(pending, delimiter, k) && startsWith(b, off, delimiter, k)) {
          pending.len -= k;
          piece(stamp);
          p = off + m - k;
          break;
        }
      }
    }
    while (p < end) {
      int at = indexOf(b, p, end, delimiter);
      if (at < 0) {
        hold(b, p, end);
        return;
      }
      if (pending != null && pending.len > 0) {
        appendBounded(pending, b, p, at - p, "message");
        piece(stamp);
      } else if (at > p) {
        records++;
        if (sink != null) sink.record(stamp, b, p, at - p);
      }
      p = at + m;
    }
  }

  // What is held is one message (a chunk's, a delimited piece, a whole body): delivered if not empty.
  private void piece(long stamp) {
    if (pending == null) return;
    if (pending.len > 0) {
      records++;
      if (sink != null) sink.record(stamp, pending.buf, 0, pending.len);
    }
    pending = kept(pending);
  }

  // pending's last k bytes are delimiter's first k.
  private static boolean endsWith(Line l, byte[] d, int k) {
    for (int i = 0; i < k; i++) if (l.buf[l.len - k + i] != d[i]) return false;
    return true;
  }

  // b[off...] holds delimiter's bytes from k on.
  private static boolean startsWith(byte[] b, int off, byte[] d, int k) {
    for (int i = k; i < d.length; i++) if (b[off + i - k] != d[i]) return false;
    return true;
  }

  // The first occurrence of d in b[from, to), or -1.
  private static int indexOf(byte[] b, int from, int to, byte[] d) {
    byte first = d[0];
    outer:
    for (int i = from; i <= to - d.length; i++) {
      if (b[i] != first) continue;
      for (int j = 1; j < d.length; j++) if (b[i + j] != d[j]) continue outer;
      return i;
    }
    return -1;
  }

  // Event stream bytes: cut at each blank line; an event lying whole in the caller's bytes is read from there.
  private void eventBody(byte[] b, int off, int len, long stamp) throws IOException {
    bodyBytes += len;
    int end = off + len;
    int start = off;   // the first byte of the event in b
    int p = off;
    while (p < end) {
      int nl = indexOf(b, p, end, (byte) '\n');
      if (nl < 0) {
        eventLineBytes += end - p;
        break;
      }
      int lineBytes = eventLineBytes + nl - p;
      byte before = nl > off ? b[nl - 1] : lastBodyByte;
      eventLineBytes = 0;
      p = nl + 1;
      if (lineBytes > 1 || (lineBytes == 1 && before != '\r')) continue;
      cut(b, start, p, stamp);
      start = p;
    }
    if (start < end) hold(b, start, end);
    if (len > 0) lastBodyByte = b[end - 1];
  }

  // One event, b[off, off+len) up to and with its blank line: its fields read, its data the record.
  private void event(byte[] b, int off, int len, long stamp) {
    int end = off + len;
    int dataOff = -1;
    int dataLen = 0;
    Line joined = null;   // only when an event has several data lines
    int idOff = -1;
    int idLen = 0;
    for (int p = off; p < end; ) {
      int nl = indexOf(b, p, end, (byte) '\n');
      int lineEnd = nl < 0 ? end : nl;
      int next = lineEnd + 1;
      if (lineEnd > p && b[lineEnd - 1] == '\r') lineEnd--;
      if (lineEnd == p || b[p] == ':') {   // the blank line, or a comment
        p = next;
        continue;
      }
      int colon = indexOf(b, p, lineEnd, (byte) ':');
      int nameEnd = colon < 0 ? lineEnd : colon;
      int v = colon < 0 ? lineEnd : colon + 1;
      if (v < lineEnd && b[v] == ' ') v++;
      if (fieldIs(b, p, nameEnd, "data")) {
        if (dataOff < 0) {
          dataOff = v;
          dataLen = lineEnd - v;
        } else {
          if (joined == null) joined = joinedData(b, dataOff, dataLen);
          joined.append(SPACE, 0, 1);
          joined.append(b, v, lineEnd - v);
        }
      } else if (fieldIs(b, p, nameEnd, "id")) {
        if (indexOf(b, v, lineEnd, (byte) 0) < 0) {
          idOff = v;
          idLen = lineEnd - v;
        }
      } else if (fieldIs(b, p, nameEnd, "retry")) {
        long ms = parseDecimal(b, v, lineEnd);
        if (ms >= 0) events.retry(ms);
      }
      p = next;
    }
    if (idOff >= 0) events.eventId(b, idOff, idLen);
    if (joined != null) deliverEvent(joined.buf, 0, joined.len, stamp);
    else if (dataLen > 0) deliverEvent(b, dataOff, dataLen, stamp);
  }

  private static Line joinedData(byte[] b, int off, int len) {
    Line l = new Line();
    l.append(b, off, len);
    return l;
  }

  private static boolean fieldIs(byte[] b, int from, int to, String name) {
    if (to - from != name.length()) return false;
    for (int i = 0; i < name.length(); i++) if (b[from + i] != name.charAt(i)) return false;
    return true;
  }

  // An event's record: its data.
  private void deliverEvent(byte[] b, int off, int len, long stamp) {
    records++;
    if (sink != null) sink.record(stamp, b, off, len);
  }

  private void deliver(byte[] b, int off, int len, long stamp) {
    if (len > 0 && b[off + len - 1] == '\r') len--;
    if (len == 0) return;
    records++;
    if (sink != null) sink.record(stamp, b, off, len);
  }

  // ---- helpers -------------------------------------------------------------------------------------------

  // Empties a spanning buffer: kept for the next one with keepBuffers (and at most 64 KB), else released
  // (a held connection keeps no buffer).
  Line kept(Line l) {
    if (l == null) return null;
    l.len = 0;
    return keepBuffers && l.buf.length <= 65536 ? l : null;
  }

  static void appendBounded(Line line, byte[] b, int off, int len, String what) throws IOException {
    if (line.len + len > MAX_LINE) throw new IOException(what + " longer than " + MAX_LINE + " bytes");
    line.append(b, off, len);
  }

  static int indexOf(byte[] b, int from, int to, byte v) {
    for (int i = from; i < to; i++) if (b[i] == v) return i;
    return -1;
  }

  // A non-negative decimal of at most 18 digits; -1 when b[from, to) is not one.
  static long parseDecimal(byte[] b, int from, int to) {
    if (to <= from || to - from > 18) return -1;
    long v = 0;
    for (int i = from; i < to; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) return -1;
      v = v * 10 + d;
    }
    return v;
  }

  /** A growable byte line. */
  static final class Line {
    byte[] buf = new byte[0];
    int len;

    void set(byte[] src, int off, int n) {
      len = 0;
      append(src, off, n);
    }

    void append(byte[] src, int off, int n) {
      if (len + n > buf.length) {
        byte[] next = new byte[Math.max(len + n, Math.max(64, buf.length * 2))];
        System.arraycopy(buf, 0, next, 0, len);
        buf = next;
      }
      System.arraycopy(src, off, buf, len, n);
      len += n;
    }

    byte[] copy() {
      byte[] out = new byte[len];
      System.arraycopy(buf, 0, out, 0, len);
      return out;
    }
  }
}
