package pushbench.jmeter;

// The HTTP/1.1 client of the push sampler (issue #22): sends one request on a kept-alive socket and reads
// the answer as it arrives, cutting its body into records at "\n" (the protocol's NDJSON, docs/protocol.md)
// and stamping every record with the engine clock's microseconds at the read that completed it. Nothing of
// the body stays in heap but the first and the last record (what the plan's assertions look at) and a
// partial record waiting for its end; every record goes to the caller's sink as it is cut.
// Body framing: chunked, Content-Length, or read to the connection's end. A connection stays open for the
// next request unless the server or an error ends it.

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

public final class PushClient implements Closeable {
  /** Receives every complete record (without its "\n") with the microsecond its last byte arrived. */
  public interface RecordSink {
    void record(long arrivalMicros, byte[] buf, int off, int len);
  }

  /** What one exchange gave. */
  public static final class Outcome {
    public int status = -1;
    public String reason = "";
    public String contentType = "";
    public long sendMicros;          // just before the request's first byte was written
    public long headersMicros;       // the answer's head was read
    public long endMicros;           // the body ended, or the exchange failed
    public boolean connected;        // a new connection was opened for it
    public long headerBytes;
    public long bodyBytes;
    public long sentBytes;
    public int records;
    public int cutBytes;             // bytes of a record the stream broke off inside
    public IOException error;        // null when the answer was read to its end
    final Line first = new Line();
    final Line last = new Line();

    /** The first and (when there are two or more) the last record, one per line: what assertions read. */
    public byte[] digest() {
      if (records <= 1 || last.len == 0) return first.copy();
      byte[] out = new byte[first.len + 1 + last.len];
      System.arraycopy(first.buf, 0, out, 0, first.len);
      out[first.len] = '\n';
      System.arraycopy(last.buf, 0, out, first.len + 1, last.len);
      return out;
    }
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

  /** Read buffer per connection: a record is ~450 bytes, and a held stream must stay small in heap. */
  static final int READ_BUFFER = 4096;
  /** Longest record (and answer head) accepted; a longer one is a broken answer, not a reason to grow. */
  static final int MAX_LINE = 1 << 20;
  /** First and last record are kept whole up to this size (assertions), cut beyond. */
  static final int KEEP_LINE = 16384;

  private Socket socket;
  private String socketHost;
  private int socketPort;
  private InputStream in;
  private OutputStream out;
  private final byte[] buf = new byte[READ_BUFFER];
  private final Line headLine = new Line();   // a head, chunk-size or trailer line being read
  private final Line pending = new Line();    // a record whose "\n" has not arrived yet

  /** The engine clock in microseconds since the epoch (CLOCK_REALTIME, as JMeter's own time stamps). */
  public static long nowMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
  }

  /**
   * Sends method path (with body, may be empty) to host:port and reads the whole answer. Never throws for
   * network trouble: the outcome's error says what broke, and what arrived before it was delivered.
   */
  public Outcome exchange(String host, int port, String method, String path, byte[] body, String contentType,
                          int connectTimeoutMs, int readTimeoutMs, RecordSink sink) {
    Outcome o = new Outcome();
    byte[] head = requestHead(host, port, method, path, body.length, contentType);
    boolean reused = socket != null && host.equals(socketHost) && port == socketPort;
    try {
      try {
        send(o, host, port, head, body, connectTimeoutMs, readTimeoutMs, reused);
        readAnswer(o, sink, method);
      } catch (IOException e) {
        // A kept-alive connection the server closed while it was idle fails before any byte of an answer:
        // once more on a new connection. A read timeout is the server's silence, not a stale connection.
        if (!reused || o.headerBytes > 0 || e instanceof java.net.SocketTimeoutException) throw e;
        close();
        o.status = -1;
        send(o, host, port, head, body, connectTimeoutMs, readTimeoutMs, false);
        readAnswer(o, sink, method);
      }
    } catch (IOException e) {
      o.error = e;
      o.endMicros = nowMicros();
      close();
    }
    return o;
  }

  private void send(Outcome o, String host, int port, byte[] head, byte[] body, int connectTimeoutMs,
                    int readTimeoutMs, boolean reused) throws IOException {
    if (!reused) {
      close();
      Socket s = new Socket();
      s.setTcpNoDelay(true);
      s.connect(new InetSocketAddress(host, port), connectTimeoutMs);
      socket = s;
      socketHost = host;
      socketPort = port;
      in = s.getInputStream();
      out = s.getOutputStream();
      o.connected = true;
    }
    socket.setSoTimeout(readTimeoutMs);
    o.sendMicros = nowMicros();
    if (body.length > 0 && head.length + body.length <= READ_BUFFER) {   // one segment for small requests
      byte[] all = new byte[head.length + body.length];
      System.arraycopy(head, 0, all, 0, head.length);
      System.arraycopy(body, 0, all, head.length, body.length);
      out.write(all);
    } else {
      out.write(head);
      if (body.length > 0) out.write(body);
    }
    out.flush();
    o.sentBytes = head.length + body.length;
  }

  static byte[] requestHead(String host, int port, String method, String path, int bodyLength, String contentType) {
    StringBuilder b = new StringBuilder(160);
    b.append(method).append(' ').append(path).append(" HTTP/1.1\r\n");
    b.append("Host: ").append(host).append(':').append(port).append("\r\n");
    if (bodyLength > 0 || !"GET".equals(method)) {
      if (contentType != null && !contentType.isEmpty()) b.append("Content-Type: ").append(contentType).append("\r\n");
      b.append("Content-Length: ").append(bodyLength).append("\r\n");
    }
    b.append("Connection: keep-alive\r\n\r\n");
    return b.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  // ---- the answer ---------------------------------------------------------------------------------------

  // Body framing states.
  private static final int SIZE = 0;        // reading a chunk-size line
  private static final int DATA = 1;        // `remaining` body bytes follow
  private static final int DATA_END = 2;    // the CRLF after a chunk's data
  private static final int TRAILER = 3;     // after the last chunk: trailer lines up to an empty one
  private static final int DONE = 4;

  private void readAnswer(Outcome o, RecordSink sink, String method) throws IOException {
    Line headLine = this.headLine;
    Line pending = this.pending;
    headLine.len = 0;
    pending.len = 0;
    int n;
    int pos = 0;
    int limit = 0;
    long stamp;
    // The head: status line and headers, up to an empty line.
    long contentLength = -1;
    boolean chunked = false;
    boolean closeAfter = false;
    outer:
    for (;;) {
      n = in.read(buf);
      if (n < 0) throw new EOFException("connection closed before the answer's head ended");
      stamp = nowMicros();
      pos = 0;
      limit = n;
      while (pos < limit) {
        int nl = indexOf(buf, pos, limit, (byte) '\n');
        if (nl < 0) {
          appendBounded(headLine, buf, pos, limit - pos, "answer head line");
          o.headerBytes += limit - pos;
          pos = limit;
          break;
        }
        appendBounded(headLine, buf, pos, nl - pos, "answer head line");
        o.headerBytes += nl + 1 - pos;
        pos = nl + 1;
        int len = headLine.len;
        if (len > 0 && headLine.buf[len - 1] == '\r') len--;
        String text = new String(headLine.buf, 0, len, StandardCharsets.ISO_8859_1);
        headLine.len = 0;
        if (o.status < 0) {
          parseStatus(o, text);
          continue;
        }
        if (text.isEmpty()) {
          if (o.status >= 100 && o.status < 200) {   // an interim answer: the real one follows
            o.status = -1;
            continue;
          }
          break outer;
        }
        int colon = text.indexOf(':');
        if (colon <= 0) continue;
        String name = text.substring(0, colon).trim();
        String value = text.substring(colon + 1).trim();
        if (name.equalsIgnoreCase("Content-Length")) {
          try { contentLength = Long.parseLong(value); } catch (NumberFormatException e) { throw new IOException("bad Content-Length: " + value); }
        } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
          chunked = value.toLowerCase().contains("chunked");
        } else if (name.equalsIgnoreCase("Connection")) {
          closeAfter = value.equalsIgnoreCase("close");
        } else if (name.equalsIgnoreCase("Content-Type")) {
          o.contentType = value;
        }
      }
    }
    o.headersMicros = stamp;
    boolean noBody = "HEAD".equals(method) || o.status == 204 || o.status == 304;
    boolean toClose = !chunked && contentLength < 0;
    int state;
    long remaining;
    if (noBody || (!chunked && contentLength == 0)) { state = DONE; remaining = 0; }
    else if (chunked) { state = SIZE; remaining = 0; }
    else if (contentLength > 0) { state = DATA; remaining = contentLength; }
    else { state = DATA; remaining = Long.MAX_VALUE; }
    Line sizeLine = headLine;   // reused for chunk-size and trailer lines
    sizeLine.len = 0;
    for (;;) {
      while (pos < limit && state != DONE) {
        switch (state) {
          case SIZE: case TRAILER: {
            int nl = indexOf(buf, pos, limit, (byte) '\n');
            int end = nl < 0 ? limit : nl;
            appendBounded(sizeLine, buf, pos, end - pos, "chunk size line");
            pos = end;
            if (nl < 0) break;
            pos = nl + 1;
            int len = sizeLine.len;
            if (len > 0 && sizeLine.buf[len - 1] == '\r') len--;
            String text = new String(sizeLine.buf, 0, len, StandardCharsets.ISO_8859_1);
            sizeLine.len = 0;
            if (state == TRAILER) {
              if (text.isEmpty()) state = DONE;
              break;
            }
            int semi = text.indexOf(';');
            String hex = (semi < 0 ? text : text.substring(0, semi)).trim();
            long size;
            try { size = Long.parseLong(hex, 16); } catch (NumberFormatException e) { throw new IOException("bad chunk size: '" + hex + "'"); }
            if (size < 0) throw new IOException("bad chunk size: '" + hex + "'");
            if (size == 0) state = TRAILER; else { state = DATA; remaining = size; }
            break;
          }
          case DATA: {
            int take = (int) Math.min(remaining, limit - pos);
            body(o, pending, sink, buf, pos, take, stamp);
            pos += take;
            if (remaining != Long.MAX_VALUE) remaining -= take;
            if (remaining == 0) state = chunked ? DATA_END : DONE;
            break;
          }
          case DATA_END: {
            byte c = buf[pos++];
            if (c == '\n') state = SIZE;
            else if (c != '\r') throw new IOException("chunk data not followed by CRLF");
            break;
          }
          default:
            throw new IllegalStateException();
        }
      }
      if (state == DONE) break;
      n = in.read(buf);
      if (n < 0) {
        if (state == DATA && remaining == Long.MAX_VALUE) { state = DONE; break; }   // body read to the close
        o.cutBytes = pending.len;
        pending.len = 0;
        throw new EOFException(chunked ? "Premature end of chunk coded message body" : "Premature end of Content-Length delimited message body");
      }
      stamp = nowMicros();
      pos = 0;
      limit = n;
    }
    // A last record without "\n" (a one-line answer) is complete when the body ended cleanly.
    if (pending.len > 0) {
      deliver(o, sink, pending.buf, 0, pending.len, stamp);
      pending.len = 0;
    }
    o.endMicros = stamp;
    if (closeAfter || toClose || pos < limit) close();   // bytes beyond the answer: not ours to guess at
  }

  private static void parseStatus(Outcome o, String text) throws IOException {
    // HTTP/1.1 200 OK
    if (!text.startsWith("HTTP/")) throw new IOException("not an HTTP answer: " + abbreviate(text));
    int sp = text.indexOf(' ');
    int sp2 = sp < 0 ? -1 : text.indexOf(' ', sp + 1);
    try {
      o.status = Integer.parseInt(sp2 < 0 ? text.substring(sp + 1).trim() : text.substring(sp + 1, sp2));
    } catch (RuntimeException e) {
      throw new IOException("bad status line: " + abbreviate(text));
    }
    o.reason = sp2 < 0 ? "" : text.substring(sp2 + 1);
  }

  private static String abbreviate(String s) {
    return s.length() > 80 ? s.substring(0, 80) + "..." : s;
  }

  // Body bytes: cut at "\n"; a record lying whole in the read buffer goes to the sink from there.
  private void body(Outcome o, Line pending, RecordSink sink, byte[] b, int off, int len, long stamp) throws IOException {
    o.bodyBytes += len;
    int end = off + len;
    int p = off;
    while (p < end) {
      int nl = indexOf(b, p, end, (byte) '\n');
      if (nl < 0) {
        appendBounded(pending, b, p, end - p, "record");
        return;
      }
      if (pending.len == 0) {
        deliver(o, sink, b, p, nl - p, stamp);
      } else {
        appendBounded(pending, b, p, nl - p, "record");
        deliver(o, sink, pending.buf, 0, pending.len, stamp);
        pending.len = 0;
      }
      p = nl + 1;
    }
  }

  private static void deliver(Outcome o, RecordSink sink, byte[] b, int off, int len, long stamp) {
    int end = off + len;
    if (len > 0 && b[end - 1] == '\r') len--;
    if (len == 0) return;
    o.records++;
    int keep = Math.min(len, KEEP_LINE);
    if (o.records == 1) o.first.set(b, off, keep); else o.last.set(b, off, keep);
    if (sink != null) sink.record(stamp, b, off, len);
  }

  private static void appendBounded(Line line, byte[] b, int off, int len, String what) throws IOException {
    if (line.len + len > MAX_LINE) throw new IOException(what + " longer than " + MAX_LINE + " bytes");
    line.append(b, off, len);
  }

  private static int indexOf(byte[] b, int from, int to, byte v) {
    for (int i = from; i < to; i++) if (b[i] == v) return i;
    return -1;
  }

  @Override
  public void close() {
    Socket s = socket;
    socket = null;
    in = null;
    out = null;
    if (s != null) {
      try { s.close(); } catch (IOException ignored) { /* closing anyway */ }
    }
  }
}
