package pushbench.jmeter;

// The HTTP/1.1 answer framing of the push samplers, push-style: the caller feeds the bytes of one answer
// as they arrive (any slicing: byte by byte or many records at once) and the parser decodes the head and
// the transfer coding, handing the body's bytes to the record cut it extends (RecordCutter: NDJSON lines,
// SSE events, a target's framings), which hands each complete record to a sink with the stamp of the read
// that completed it. Used by PushClient (one blocking socket per JMeter thread) and MuxEngine (thousands of
// non-blocking channels per thread), so the framing rules exist once:
// - head: status line, headers up to an empty line; interim 1xx answers are skipped;
// - body: chunked (with trailers), Content-Length, or read to the connection's end; none for HEAD, 204, 304;
// - a line (head, chunk size, trailer) longer than MAX_LINE bytes breaks the answer; a line is copied only
//   when it spans reads (into a buffer allocated then and released after);
// - a WebSocket upgrade (the caller said so: expectUpgrade) ends at the head of a 101, which is then the
//   answer and not an interim one; its Sec-WebSocket-Accept is kept (`accept`) and the bytes after the head
//   are the caller's (RFC 6455 frames, MuxEngine's WsFrames). Any other answer is read as above;
// - capture(names): the values of these response headers are kept (`captured`, null when absent), for a
//   target poll's cursor.

import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

final class AnswerParser extends RecordCutter {
  // Phases of an answer.
  private static final int HEAD = 0;       // status line and headers
  private static final int SIZE = 1;       // a chunk-size line
  private static final int DATA = 2;       // `remaining` body bytes follow
  private static final int DATA_END = 3;   // the CRLF after a chunk's data
  private static final int TRAILER = 4;    // after the last chunk: trailer lines up to an empty one
  private static final int DONE = 5;

  // What the answer said; valid once its head is read (status >= 0 and phase past HEAD).
  int status = -1;
  String reason = "";
  String contentType = "";
  /** A 101's Sec-WebSocket-Accept (expectUpgrade only), else "". */
  String accept = "";
  /** The answer asked for the connection's end (Connection: close), or its body runs to the end. */
  boolean closeAfter;
  long headerBytes;
  /** Stamp of the read that completed the head, and of the last read fed. */
  long headersMicros;
  long lastMicros;

  private int phase = DONE;
  private boolean headRequest;
  private boolean chunked;
  private boolean toClose;           // no length and not chunked: the body is read to the connection's end
  private long contentLength;
  private long remaining;
  private Line line;                 // a head, chunk-size or trailer line spanning reads
  private boolean upgrade;           // a 101 is the answer (a WebSocket upgrade), not an interim one
  private String[] capture;          // response header names (lower case) whose values are kept
  /** capture(): each named header's value in this answer's head, null when absent. */
  String[] captured;

  /** keepBuffers: keep a spanning line's buffer for the next one (one client, few answers held at once). */
  AnswerParser(boolean keepBuffers) {
    super(keepBuffers);
  }

  /** Prepares for a new answer; records go to sink (may be null). headRequest: the answer has no body. */
  void start(PushClient.RecordSink sink, boolean headRequest) {
    start(sink, headRequest, null);
  }

  /** As start(sink, headRequest); events non-null: an event stream answer is read as one, its fields to events. */
  void start(PushClient.RecordSink sink, boolean headRequest, EventSink events) {
    startBody(sink, events);
    this.headRequest = headRequest;
    upgrade = false;
    capture = null;
    accept = "";
    status = -1;
    reason = "";
    contentType = "";
    closeAfter = false;
    headerBytes = 0;
    headersMicros = 0;
    lastMicros = 0;
    resetHeaders();
    phase = HEAD;
    line = kept(line);
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
    dropPending();
    line = kept(line);
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
      line = kept(line);
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
    bodyType(contentType);
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
    if (!chunked && take == remaining) lastBody(b, pos, take, stamp); else body(b, pos, take, stamp);
    if (remaining != Long.MAX_VALUE) remaining -= take;
    if (remaining == 0) {
      if (chunked) {
        phase = DATA_END;
        chunkEnded(stamp);
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

  // The body ended cleanly: its last record cut (RecordCutter.endBody).
  private void finish() {
    phase = DONE;
    endBody(lastMicros);
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
}
