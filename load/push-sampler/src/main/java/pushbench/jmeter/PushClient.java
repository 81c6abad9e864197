package pushbench.jmeter;

// The HTTP/1.1 client of the push sampler (issue #22): sends one request on a kept-alive socket and reads
// the answer as it arrives, cutting its body into records at "\n" (the protocol's NDJSON, docs/protocol.md)
// and stamping every record with the engine clock's microseconds at the read that completed it. Nothing of
// the body stays in heap but the first and the last record (what the plan's assertions look at) and a
// partial record waiting for its end; every record goes to the caller's sink as it is cut.
// The answer's framing (chunked, Content-Length, or read to the connection's end) is AnswerParser's, shared
// with the multiplexing engine (MuxEngine). A connection stays open for the next request unless the server
// or an error ends it.

import java.io.Closeable;
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
    final AnswerParser.Line first = new AnswerParser.Line();
    final AnswerParser.Line last = new AnswerParser.Line();

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

  /** Read buffer per connection: a record is ~450 bytes, and a held stream must stay small in heap. */
  static final int READ_BUFFER = 4096;
  /** First and last record are kept whole up to this size (assertions), cut beyond. */
  static final int KEEP_LINE = 16384;

  private Socket socket;
  private String socketHost;
  private int socketPort;
  private InputStream in;
  private OutputStream out;
  private final byte[] buf = new byte[READ_BUFFER];
  private final AnswerParser parser = new AnswerParser(true);

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
      try {
        s.connect(new InetSocketAddress(host, port), connectTimeoutMs);
        Dial.notToItself(s.getLocalSocketAddress(), s.getRemoteSocketAddress());
      } catch (IOException | RuntimeException e) {
        s.close();
        throw e;
      }
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
    if (bodyLength > 0 || !"GET".equals(method)) {
      return (headUpToLength(host, port, method, path, contentType) + bodyLength + HEAD_AFTER_LENGTH)
          .getBytes(StandardCharsets.ISO_8859_1);
    }
    return (requestLine(host, port, method, path) + "Connection: keep-alive\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
  }

  /** What follows a request head's Content-Length value (headUpToLength): the head's last line and its end. */
  static final String HEAD_AFTER_LENGTH = "\r\nConnection: keep-alive\r\n\r\n";

  /** A request head with a body, up to its Content-Length value ("...Content-Length: "). */
  static String headUpToLength(String host, int port, String method, String path, String contentType) {
    StringBuilder b = new StringBuilder(160).append(requestLine(host, port, method, path));
    if (contentType != null && !contentType.isEmpty()) b.append("Content-Type: ").append(contentType).append("\r\n");
    return b.append("Content-Length: ").toString();
  }

  private static String requestLine(String host, int port, String method, String path) {
    return method + ' ' + path + " HTTP/1.1\r\nHost: " + host + ':' + port + "\r\n";
  }

  // ---- the answer ----------------------------------------------------------------------------------------

  // Reads until the parser says the answer ended; its framing rules are AnswerParser's.
  private void readAnswer(Outcome o, RecordSink sink, String method) throws IOException {
    AnswerParser p = parser;
    p.start((micros, b, off, len) -> {
      int keep = Math.min(len, KEEP_LINE);
      if (p.records == 1) o.first.set(b, off, keep); else o.last.set(b, off, keep);
      if (sink != null) sink.record(micros, b, off, len);
    }, "HEAD".equals(method));
    boolean leftover = false;
    try {
      for (;;) {
        int n = in.read(buf);
        if (n < 0) {
          p.endOfInput(p.lastMicros);
          break;
        }
        int used = p.feed(buf, 0, n, nowMicros());
        if (p.done()) {
          leftover = used < n;
          break;
        }
      }
    } catch (IOException e) {
      p.abort();
      throw e;
    } finally {
      o.status = p.status;
      o.reason = p.reason;
      o.contentType = p.contentType;
      o.headersMicros = p.headersMicros;
      o.headerBytes = p.headerBytes;
      o.bodyBytes = p.bodyBytes;
      o.records = p.records;
      o.cutBytes = p.cutBytes;
    }
    o.endMicros = p.lastMicros;
    if (p.closeAfter || leftover) close();   // bytes beyond the answer: not ours to guess at
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
