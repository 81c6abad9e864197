package pushbench.jmeter;

// The HTTP/1.1 answer framing of the push samplers, push-style: the caller feeds the bytes of one answer
// as they arrive (any slicing: byte by byte or many records at once) and the parser cuts the body into
// records at "\n" (the protocol's NDJSON, docs/protocol.md), handing each complete record to a sink with
// the stamp of the read that completed it. Used by PushClient (one blocking socket per JMeter thread) and
// MuxEngine (thousands of non-blocking channels per thread), so the framing rules exist once:
// - head: status line, headers up to an empty line; interim 1xx answers are skipped;
// - body: chunked (with trailers), Content-Length, or read to the connection's end; none for HEAD, 204, 304;
// - a line (head, chunk size, trailer) or record longer than MAX_LINE bytes breaks the answer;
// - a record ends at "\n", a trailing "\r" is stripped, empty records are skipped; a last record without
//   "\n" is complete when the body ends cleanly;
// - a line or record is copied only when it spans reads (into a buffer allocated then and released after),
//   so a parser waiting for its next bytes holds no buffer;
// - an event stream (the caller asked for one, and the answer's Content-Type is text/event-stream: the
//   protocol's SSE, docs/protocol.md) is cut at blank lines instead, one event per cut (LF or CRLF line
//   ends), and each event is read as the HTML standard's EventSource reads it: a line starting with ":" is a
//   comment, "field: value" (one space after the colon dropped), `data` lines joined are the record
//   (none, or empty: no record; joined by a space, not EventSource's "\n": a record is one line, and the
//   stream log writes a line end inside a field as a space anyway), `id` (without NUL) and `retry` (digits only) go to the EventSink, other
//   fields are ignored; an event the body ends inside (no blank line after it) is not dispatched: its bytes
//   count as cut. Every other answer (an error's JSON body) is cut into records at "\n" as above;
// - a WebSocket upgrade (the caller said so: expectUpgrade) ends at the head of a 101, which is then the
//   answer and not an interim one; its Sec-WebSocket-Accept is kept (`accept`) and the bytes after the head
//   are the caller's (RFC 6455 frames, MuxEngine's WsFrames). Any other answer is read as above;
// - a target run's framing (issue #47, docs/targets.md; the caller sets it with frame() after start): CHUNK
//   cuts a chunked body into one message per HTTP chunk (any other body is one message), DELIMITER at each
//   occurrence of the caller's bytes (a delimiter split across reads is found; empty pieces are skipped; a
//   last piece is complete when the body ends cleanly), WHOLE makes the body one message (a poll's answer;
//   an empty body is none). These messages are held whole (up to MAX_LINE) and copied once, and keep their
//   bytes as they came (no "\r" stripped); LINES, the default, is the "\n" cut above;
// - capture(names): the values of these response headers are kept (`captured`, null when absent), for a
//   target poll's cursor.

import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

final class AnswerParser {
  /** Longest record (and head line) accepted; a longer one is a broken answer, not a reason to grow. */
  static final int MAX_LINE = 1 << 20;
  private static final byte[] SPACE = {' '};

  // Phases of an answer.
  private static final int HEAD = 0;       // status line and headers
  private static final int SIZE = 1;       // a chunk-size line
  private static final int DATA = 2;       // `remaining` body bytes follow
  private static final int DATA_END = 3;   // the CRLF after a chunk's data
  private static final int TRAILER = 4;    // after the last chunk: trailer lines up to an empty one
  private static final int DONE = 5;

  // How a body that is not an event stream is cut into records (frame()).
  static final int LINES = 0;
  static final int CHUNK = 1;
  static final int DELIMITER = 2;
  static final int WHOLE = 3;

  // What the answer said; valid once its head is read (status >= 0 and phase past HEAD).
  int status = -1;
  String reason = "";
  String contentType = "";
  /** A 101's Sec-WebSocket-Accept (expectUpgrade only), else "". */
  String accept = "";
  /** The answer asked for the connection's end (Connection: close), or its body runs to the end. */
  boolean closeAfter;
  long headerBytes;
  long bodyBytes;
  int records;
  /** Bytes of a record the answer broke off inside (set by abort() and a premature end). */
  int cutBytes;
  /** Stamp of the read that completed the head, and of the last read fed. */
  long headersMicros;
  long lastMicros;

  private PushClient.RecordSink sink;
  private int phase = DONE;
  private boolean headRequest;
  private boolean chunked;
  private boolean toClose;           // no length and not chunked: the body is read to the connection's end
  private long contentLength;
  private long remaining;
  private Line line;                 // a head, chunk-size or trailer line spanning reads
  private Line pending;              // a record (an event) spanning reads
  private final boolean keepBuffers;
  private EventSink events;          // non-null: the caller asked for an event stream
  private boolean eventStream;       // the answer is one (its head said text/event-stream)
  private int eventLineBytes;        // bytes of the event's current line read so far
  private byte lastBodyByte;         // the body byte before the current read's (a CR ending a line)
  private boolean upgrade;           // a 101 is the answer (a WebSocket upgrade), not an interim one
  private int framing = LINES;
  private byte[] delimiter;          // DELIMITER: the bytes a message ends at
  private String[] capture;          // response header names (lower case) whose values are kept
  /** capture(): each named header's value in this answer's head, null when absent. */
  String[] captured;

  /** Receives the fields of an event stream that are not its records: the last event id and retry. */
  interface EventSink extends PushClient.RecordSink {
    /** An event was dispatched with an id field: b[off, off+len) is the new last event id. */
    void eventId(byte[] b, int off, int len);

    /** A retry field: the reconnection time the server asks for, ms. */
    void retry(long ms);
  }

  /** keepBuffers: keep a spanning line's buffer for the next one (one client, few answers held at once). */
  AnswerParser(boolean keepBuffers) {
    this.keepBuffers = keepBuffers;
  }

  /** Prepares for a new answer; records go to sink (may be null). headRequest: the answer has no body. */
  void start(PushClient.RecordSink sink, boolean headRequest) {
    start(sink, headRequest, null);
  }

  /** As start(sink, headRequest); events non-null: an event stream answer is read as one, its fields to events. */
  void start(PushClient.RecordSink sink, boolean headRequest, EventSink events) {
    this.sink = sink;
    this.events = events;
    eventStream = false;
    eventLineBytes = 0;
    lastBodyByte = 0;
    this.headRequest = headRequest;
    upgrade = false;
    framing = LINES;
    capture = null;
    accept = "";
    status = -1;
    reason = "";
    contentType = "";
    closeAfter = false;
    headerBytes = 0;
    bodyBytes = 0;
    records = 0;
    cutBytes = 0;
    headersMicros = 0;
    lastMicros = 0;
    resetHeaders();
    phase = HEAD;
    clear(line);
    clear(pending);
  }

  /** After start: the body is cut by this framing (LINES, CHUNK, DELIMITER at delimiter's bytes, WHOLE). */
  void frame(int framing, byte[] delimiter) {
    this.framing = framing;
    this.delimiter = delimiter;
  }

  /** After start: these response headers' values (names in lower case) are kept in `captured`. */
  void capture(String[] lowerNames) {
    capture = lowerNames;
    captured = new String[lowerNames.length];
  }

  /** After start: the request asked for a WebSocket upgrade, so a 101 ends the answer at its head. */
  void expectUpgrade() { upgrade = true; }

  /** The answer is a 101 to an upgrade: the connection now speaks the protocol it switched to. */
  boolean switched() { return upgrade && status == 101 && phase == DONE; }

  boolean done() { return phase == DONE; }

  /** The head was read (the answer's status is known). */
  boolean headRead() { return phase != HEAD; }

  /** Bytes were received for this answer (what tells a stale kept-alive connection from a slow answer). */
  boolean anyBytes() { return headerBytes > 0; }

  /**
   * Feeds bytes b[off, off+len) read at stamp. Returns how many it took: fewer than len only when the
   * answer ended before them (bytes beyond an answer are not this parser's).
   */
  int feed(byte[] b, int off, int len, long stamp) throws IOException {
    lastMicros = stamp;
    int pos = off;
    int limit = off + len;
    while (pos < limit && phase != DONE) {
      switch (phase) {
        case HEAD: case SIZE: case TRAILER: pos = lineBytes(b, pos, limit, stamp); break;
        case DATA: pos = dataBytes(b, pos, limit, stamp); break;
        case DATA_END: pos = dataEnd(b, pos); break;
        default: throw new IllegalStateException("phase " + phase);
      }
    }
    return pos - off;
  }

  /**
   * The connection ended (EOF) at stamp. A body read to the connection's end is complete; anything else
   * unfinished is a premature end (EOFException, cut bytes counted).
   */
  void endOfInput(long stamp) throws IOException {
    if (phase == DONE) return;
    if (phase == DATA && toClose) {
      lastMicros = stamp;
      finish();
      return;
    }
    String message = phase == HEAD ? "connection closed before the answer's head ended"
        : chunked ? "Premature end of chunk coded message body"
        : "Premature end of Content-Length delimited message body";
    abort();
    throw new EOFException(message);
  }

  /** The answer broke off (network error, timeout): a partial record is counted as cut and dropped. */
  void abort() {
    if (pending != null && pending.len > 0) cutBytes = pending.len;
    clear(pending);
    clear(line);
    phase = DONE;
  }

  // ---- lines: head, chunk size, trailer ----------------------------------------------------------------

  private int lineBytes(byte[] b, int pos, int limit, long stamp) throws IOException {
    int nl = indexOf(b, pos, limit, (byte) '\n');
    int end = nl < 0 ? limit : nl;
    if (phase == HEAD) headerBytes += (nl < 0 ? limit : nl + 1) - pos;
    if (nl < 0 || (line != null && line.len > 0)) {
      if (line == null) line = new Line();
      appendBounded(line, b, pos, end - pos, phase == HEAD ? "answer head line" : "chunk size line");
      if (nl < 0) return limit;
      onLine(line.buf, 0, line.len, stamp);
      clear(line);
    } else {
      onLine(b, pos, end - pos, stamp);
    }
    return nl + 1;
  }

  private void onLine(byte[] b, int off, int len, long stamp) throws IOException {
    if (len > 0 && b[off + len - 1] == '\r') len--;
    switch (phase) {
      case HEAD: headLine(b, off, len, stamp); break;
      case SIZE: sizeLine(b, off, len); break;
      case TRAILER: if (len == 0) finish(); break;
      default: throw new IllegalStateException("phase " + phase);
    }
  }

  private void headLine(byte[] b, int off, int len, long stamp) throws IOException {
    if (status < 0) {
      parseStatus(b, off, len);
      return;
    }
    if (len == 0) {
      if (status >= 100 && status < 200 && !(upgrade && status == 101)) {   // an interim answer: the real one follows
        status = -1;
        resetHeaders();
        return;
      }
      headEnded(stamp);
      return;
    }
    int colon = indexOf(b, off, off + len, (byte) ':');
    if (colon <= off) return;
    int nameEnd = trimEnd(b, off, colon);
    int vStart = trimStart(b, colon + 1, off + len);
    int vEnd = trimEnd(b, vStart, off + len);
    if (capture != null) {
      for (int k = 0; k < capture.length; k++) {
        if (nameIs(b, off, nameEnd, capture[k])) captured[k] = new String(b, vStart, vEnd - vStart, StandardCharsets.ISO_8859_1);
      }
    }
    if (nameIs(b, off, nameEnd, "content-length")) {
      contentLength = parseLength(b, vStart, vEnd);
    } else if (nameIs(b, off, nameEnd, "transfer-encoding")) {
      chunked = contains(b, vStart, vEnd, "chunked");
    } else if (nameIs(b, off, nameEnd, "connection")) {
      closeAfter = nameIs(b, vStart, vEnd, "close");
    } else if (nameIs(b, off, nameEnd, "content-type")) {
      contentType = new String(b, vStart, vEnd - vStart, StandardCharsets.ISO_8859_1);
    } else if (upgrade && nameIs(b, off, nameEnd, "sec-websocket-accept")) {
      accept = new String(b, vStart, vEnd - vStart, StandardCharsets.ISO_8859_1);
    }
  }

  private void headEnded(long stamp) {
    headersMicros = stamp;
    eventStream = events != null && contentType.regionMatches(true, 0, "text/event-stream", 0, 17);
    boolean noBody = headRequest || status == 204 || status == 304 || (upgrade && status == 101);
    toClose = !chunked && contentLength < 0;
    if (noBody || (!chunked && contentLength == 0)) {
      toClose = false;
      finish();
    } else if (chunked) {
      phase = SIZE;
    } else {
      phase = DATA;
      remaining = contentLength > 0 ? contentLength : Long.MAX_VALUE;
    }
    if (toClose) closeAfter = true;
  }

  private void parseStatus(byte[] b, int off, int len) throws IOException {
    // HTTP/1.1 200 OK
    if (len < 5 || b[off] != 'H' || b[off + 1] != 'T' || b[off + 2] != 'T' || b[off + 3] != 'P' || b[off + 4] != '/') {
      throw new IOException("not an HTTP answer: " + abbreviate(b, off, len));
    }
    int end = off + len;
    int sp = indexOf(b, off, end, (byte) ' ');
    int sp2 = sp < 0 ? -1 : indexOf(b, sp + 1, end, (byte) ' ');
    int codeStart = sp < 0 ? end : trimStart(b, sp + 1, end);
    int codeEnd = sp2 < 0 ? trimEnd(b, codeStart, end) : sp2;
    long code = parseDecimal(b, codeStart, codeEnd);
    if (code < 0 || code > 999) throw new IOException("bad status line: " + abbreviate(b, off, len));
    status = (int) code;
    reason = sp2 < 0 ? "" : reasonText(b, sp2 + 1, end);
  }

  private static String reasonText(byte[] b, int from, int to) {
    if (to - from == 2 && b[from] == 'O' && b[from + 1] == 'K') return "OK";
    return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
  }

  private void sizeLine(byte[] b, int off, int len) throws IOException {
    int end = off + len;
    int semi = indexOf(b, off, end, (byte) ';');
    int from = trimStart(b, off, semi < 0 ? end : semi);
    int to = trimEnd(b, from, semi < 0 ? end : semi);
    long size = 0;
    boolean bad = to == from || to - from > 15;
    for (int i = from; i < to && !bad; i++) {
      int d = Character.digit(b[i], 16);
      if (d < 0) bad = true; else size = size * 16 + d;
    }
    if (bad) throw new IOException("bad chunk size: '" + new String(b, from, to - from, StandardCharsets.ISO_8859_1) + "'");
    if (size == 0) {
      phase = TRAILER;
    } else {
      phase = DATA;
      remaining = size;
    }
  }

  private long parseLength(byte[] b, int from, int to) throws IOException {
    long v = parseDecimal(b, from, to);
    if (v < 0) throw new IOException("bad Content-Length: " + new String(b, from, to - from, StandardCharsets.ISO_8859_1));
    return v;
  }

  // ---- body ----------------------------------------------------------------------------------------------

  private int dataBytes(byte[] b, int pos, int limit, long stamp) throws IOException {
    int take = (int) Math.min(remaining, limit - pos);
    body(b, pos, take, stamp);
    if (remaining != Long.MAX_VALUE) remaining -= take;
    if (remaining == 0) {
      if (chunked) {
        phase = DATA_END;
        if (framing == CHUNK) piece(stamp);
      } else {
        finish();
      }
    }
    return pos + take;
  }

  private int dataEnd(byte[] b, int pos) throws IOException {
    byte c = b[pos];
    if (c == '\n') phase = SIZE;
    else if (c != '\r') throw new IOException("chunk data not followed by CRLF");
    return pos + 1;
  }

  // Body bytes: cut at "\n"; a record lying whole in the caller's bytes goes to the sink from there.
  private void body(byte[] b, int off, int len, long stamp) throws IOException {
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
    clear(pending);
  }

  // The start of a record (an event) that the caller's bytes end inside: held until its end comes.
  private void hold(byte[] b, int from, int to) throws IOException {
    if (pending == null) pending = new Line();
    appendBounded(pending, b, from, to - from, eventStream ? "event" : "record");
  }

  // The body ended cleanly: a last record without "\n" is complete; an event without its blank line is not.
  private void finish() {
    phase = DONE;
    if (!eventStream && framing != LINES) {
      piece(lastMicros);
      return;
    }
    if (eventStream && pending != null && pending.len > 0) {
      cutBytes = pending.len;
      clear(pending);
    } else if (pending != null && pending.len > 0) {
      deliver(pending.buf, 0, pending.len, lastMicros);
      clear(pending);
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
    clear(pending);
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

  private void resetHeaders() {
    contentLength = -1;
    chunked = false;
    toClose = false;
    closeAfter = false;
    contentType = "";
    remaining = 0;
  }

  // Empties a spanning buffer; without keepBuffers it is released (a held connection keeps no buffer).
  private void clear(Line l) {
    if (l == null) return;
    l.len = 0;
    if (!keepBuffers || l.buf.length > 65536) {
      if (l == line) line = null; else if (l == pending) pending = null;
    }
  }

  private static void appendBounded(Line line, byte[] b, int off, int len, String what) throws IOException {
    if (line.len + len > MAX_LINE) throw new IOException(what + " longer than " + MAX_LINE + " bytes");
    line.append(b, off, len);
  }

  static int indexOf(byte[] b, int from, int to, byte v) {
    for (int i = from; i < to; i++) if (b[i] == v) return i;
    return -1;
  }

  /** Whether b[from, to) contains the ASCII word (as found in a record, case-sensitive). */
  static boolean containsWord(byte[] b, int from, int to, byte[] word) {
    byte first = word[0];
    int last = to - word.length;
    outer:
    for (int i = from; i <= last; i++) {
      if (b[i] != first) continue;
      for (int j = 1; j < word.length; j++) if (b[i + j] != word[j]) continue outer;
      return true;
    }
    return false;
  }

  // Case-insensitive containment of a lower-case ASCII word.
  private static boolean contains(byte[] b, int from, int to, String lower) {
    int n = lower.length();
    for (int i = from; i + n <= to; i++) {
      if (nameIs(b, i, i + n, lower)) return true;
    }
    return false;
  }

  // Case-insensitive equality of b[from, to) and a lower-case ASCII word.
  private static boolean nameIs(byte[] b, int from, int to, String lower) {
    if (to - from != lower.length()) return false;
    for (int i = 0; i < lower.length(); i++) {
      int c = b[from + i];
      if (c >= 'A' && c <= 'Z') c += 'a' - 'A';
      if (c != lower.charAt(i)) return false;
    }
    return true;
  }

  // A non-negative decimal of at most 18 digits; -1 when b[from, to) is not one.
  private static long parseDecimal(byte[] b, int from, int to) {
    if (to <= from || to - from > 18) return -1;
    long v = 0;
    for (int i = from; i < to; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) return -1;
      v = v * 10 + d;
    }
    return v;
  }

  private static int trimStart(byte[] b, int from, int to) {
    while (from < to && (b[from] == ' ' || b[from] == '\t')) from++;
    return from;
  }

  private static int trimEnd(byte[] b, int from, int to) {
    while (to > from && (b[to - 1] == ' ' || b[to - 1] == '\t')) to--;
    return to;
  }

  private static String abbreviate(byte[] b, int off, int len) {
    String s = new String(b, off, Math.min(len, 81), StandardCharsets.ISO_8859_1);
    return s.length() > 80 ? s.substring(0, 80) + "..." : s;
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
