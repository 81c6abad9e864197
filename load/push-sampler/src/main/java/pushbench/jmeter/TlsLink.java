package pushbench.jmeter;

// TLS on one non-blocking SocketChannel driven by its thread's selector (issue #49; docs/engine.md "TLS"):
// an SSLEngine per connection, no thread per connection. The engine (MuxEngine, TargetPublisher) calls it
// where it would call the channel: handshake() after the TCP connect until it returns true, read() and
// write() for plaintext, flush() when the selector says the channel is writable, close() to end.
// Rules:
// - handshake(): wraps and unwraps as far as the bytes at hand allow (delegated tasks run inline, on the
//   selector thread); false when it must wait: for OP_WRITE while wantsWrite(), else for OP_READ;
// - read(dst): the network bytes kept from before (a record split across reads, or records beyond dst's
//   room) and what the socket has, unwrapped into dst while dst has room for a whole record; what is left
//   is kept (a copy of its exact size; none most of the time) and more() says that dst ran out of room with
//   whole records left, which the selector will not announce again (the bytes are no longer in the socket);
//   -1 at the peer's close_notify or at the socket's end (a body read to the close ends there: no truncation
//   error), 0 when nothing is ready;
// - write(src): src wrapped and written; bytes the socket did not take are kept (a copy) and flushed first
//   on the next write() or flush(); all of src counts as consumed, flushed() says whether it is on the wire;
// - a post-handshake message (a TLS 1.3 session ticket or key update) is handled inside read();
// - close(): close_notify is wrapped and offered once to the socket (never waited for), the socket closed.
// The scratch buffers (one network buffer each way) belong to the selector thread (Scratch) and are shared
// by all its connections, so a connection holds only its SSLEngine and, rarely, its leftover bytes.
// failureKind(e) names a TLS failure for the stream log: "TLS: certificate untrusted", "TLS: wrong host
// name", "TLS: certificate expired", "TLS: certificate not yet valid", else "TLS: handshake failed".

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

final class TlsLink {
  static final String UNTRUSTED = "TLS: certificate untrusted";
  static final String WRONG_NAME = "TLS: wrong host name";
  static final String EXPIRED = "TLS: certificate expired";
  static final String NOT_YET_VALID = "TLS: certificate not yet valid";
  static final String HANDSHAKE_FAILED = "TLS: handshake failed";
  private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

  /** A selector thread's buffers, shared by its connections: network bytes in, network bytes out. */
  static final class Scratch {
    private ByteBuffer in = ByteBuffer.allocate(0);
    private ByteBuffer out = ByteBuffer.allocate(0);
    private ByteBuffer app = ByteBuffer.allocate(0);

    ByteBuffer in(int size) {
      if (in.capacity() < size) in = ByteBuffer.allocate(size);
      in.clear();
      return in;
    }

    ByteBuffer out(int size) {
      if (out.capacity() < size) out = ByteBuffer.allocate(size);
      out.clear();
      return out;
    }

    ByteBuffer app(int size) {
      if (app.capacity() < size) app = ByteBuffer.allocate(size);
      app.clear();
      return app;
    }
  }

  private final SSLEngine engine;
  private final SocketChannel ch;
  private final Scratch scratch;
  private final int packetSize;
  private final int appSize;
  private ByteBuffer inLeft;     // network bytes read, not yet unwrapped; null: none
  private ByteBuffer outLeft;    // wrapped bytes the socket has not taken; null: none
  private boolean handshaken;
  private boolean closed;        // the peer's close_notify or the socket's end was read
  private boolean more;
  /** System.nanoTime() when the handshake began, and its length in µs once done (0 before). */
  final long beganNanos;
  private final long beganMillis;
  long handshakeMicros;

  TlsLink(SSLEngine engine, SocketChannel ch, Scratch scratch) throws SSLException {
    this.engine = engine;
    this.ch = ch;
    this.scratch = scratch;
    this.packetSize = engine.getSession().getPacketBufferSize();
    this.appSize = engine.getSession().getApplicationBufferSize();
    this.beganNanos = System.nanoTime();
    this.beganMillis = System.currentTimeMillis();
    engine.beginHandshake();
  }

  /** The handshake is done. */
  boolean handshaken() {
    return handshaken;
  }

  /** The session the handshake agreed (its protocol, cipher suite). */
  javax.net.ssl.SSLSession session() {
    return engine.getSession();
  }

  /** The handshake resumed a session of an earlier connection (the session is older than this handshake). */
  boolean resumed() {
    return handshaken && engine.getSession().getCreationTime() < beganMillis;
  }

  /** Wrapped bytes wait for the socket: the caller asks for OP_WRITE and calls flush() when writable. */
  boolean wantsWrite() {
    return outLeft != null;
  }

  /** Everything written so far is on the wire. */
  boolean flushed() {
    return outLeft == null;
  }

  /** read() stopped at dst's room with whole records left: call it again without waiting for the selector. */
  boolean more() {
    return more;
  }

  /** Drives the handshake as far as it can go now; true once it is done (then read and write). */
  boolean handshake() throws IOException {
    if (handshaken) return true;
    if (!flush()) return false;
    while (true) {
      HandshakeStatus hs = engine.getHandshakeStatus();
      switch (hs) {
        case NEED_TASK:
          runTasks();
          break;
        case NEED_WRAP: {
          ByteBuffer out = scratch.out(packetSize);
          SSLEngineResult r = engine.wrap(EMPTY, out);
          out.flip();
          if (out.hasRemaining() && !send(out)) return false;
          if (r.getStatus() == SSLEngineResult.Status.CLOSED) throw new SSLException("TLS: the handshake was closed");
          if (r.getHandshakeStatus() == HandshakeStatus.FINISHED) return done();
          break;
        }
        case NEED_UNWRAP:
        case NEED_UNWRAP_AGAIN: {
          ByteBuffer in = gather();
          if (in == null) {
            if (closed) throw new EOFException("TLS: the server closed the connection during the handshake");
            return false;
          }
          ByteBuffer app = scratch.app(appSize);
          SSLEngineResult r = engine.unwrap(in, app);
          keep(in);
          if (app.position() > 0) throw new SSLException("TLS: application data inside the handshake");
          switch (r.getStatus()) {
            case BUFFER_UNDERFLOW:
              if (closed) throw new EOFException("TLS: the connection closed during the handshake");
              return false;
            case CLOSED: throw new EOFException("TLS: the server closed the connection during the handshake");
            default: break;
          }
          if (r.getHandshakeStatus() == HandshakeStatus.FINISHED) return done();
          break;
        }
        default:   // NOT_HANDSHAKING, FINISHED
          return done();
      }
    }
  }

  private boolean done() throws IOException {
    handshaken = true;
    handshakeMicros = Math.max(1, (System.nanoTime() - beganNanos) / 1000);
    return flush();
  }

  // The network bytes to unwrap: those kept and what the socket has now; null when there are none.
  private ByteBuffer gather() throws IOException {
    int left = inLeft == null ? 0 : inLeft.remaining();
    ByteBuffer in = scratch.in(Math.max(MuxEngine.READ_BUFFER, left + packetSize));
    if (inLeft != null) {
      in.put(inLeft);
      inLeft = null;
    }
    if (!closed && in.hasRemaining() && ch.read(in) < 0) closed = true;
    in.flip();
    return in.hasRemaining() ? in : null;
  }

  // What is left of in kept for the next call (a copy: the scratch buffer is the thread's).
  private void keep(ByteBuffer in) {
    if (!in.hasRemaining()) return;
    ByteBuffer copy = ByteBuffer.allocate(in.remaining());
    copy.put(in).flip();
    inLeft = copy;
  }

  /** Plaintext into dst (at its position): bytes, 0 when none is ready, -1 at the peer's close or end. */
  int read(ByteBuffer dst) throws IOException {
    more = false;
    int start = dst.position();
    ByteBuffer in = gather();
    boolean notify = false;
    while (in != null && in.hasRemaining()) {
      if (dst.remaining() < appSize) {
        more = true;
        break;
      }
      SSLEngineResult r = engine.unwrap(in, dst);
      HandshakeStatus hs = r.getHandshakeStatus();
      if (hs == HandshakeStatus.NEED_TASK) runTasks();
      if (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) wrapControl();
      if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
        notify = true;
        break;
      }
      if (r.getStatus() != SSLEngineResult.Status.OK) break;   // underflow: the rest of the record is to come
      if (r.bytesConsumed() == 0 && r.bytesProduced() == 0) break;
    }
    if (in != null) keep(in);
    if (notify) {
      closed = true;
      inLeft = null;
    }
    int n = dst.position() - start;
    if (n > 0) return n;
    return closed ? -1 : 0;   // at the end a record cut short is dropped: there is no more of it
  }

  // A message the engine must answer outside the handshake (a key update): wrapped and sent.
  private void wrapControl() throws IOException {
    while (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) {
      ByteBuffer out = scratch.out(packetSize);
      SSLEngineResult r = engine.wrap(EMPTY, out);
      out.flip();
      if (out.hasRemaining()) send(out);
      if (r.getStatus() == SSLEngineResult.Status.CLOSED || r.bytesProduced() == 0) return;
    }
  }

  /** Wraps and writes src; returns the plaintext bytes consumed (all of it, unless the engine is closed). */
  int write(ByteBuffer src) throws IOException {
    if (!flush()) return 0;
    int consumed = 0;
    while (src.hasRemaining()) {
      ByteBuffer out = scratch.out(packetSize);
      SSLEngineResult r = engine.wrap(src, out);
      if (r.getStatus() == SSLEngineResult.Status.CLOSED) throw new SSLException("TLS: the connection is closed");
      consumed += r.bytesConsumed();
      out.flip();
      if (!send(out)) break;
    }
    return consumed;
  }

  // Writes out; what the socket does not take is kept. Whether it took everything.
  private boolean send(ByteBuffer out) throws IOException {
    ch.write(out);
    if (!out.hasRemaining()) return true;
    ByteBuffer copy = ByteBuffer.allocate(out.remaining() + (outLeft == null ? 0 : outLeft.remaining()));
    if (outLeft != null) copy.put(outLeft);
    copy.put(out).flip();
    outLeft = copy;
    return false;
  }

  /** Writes what the socket did not take before; whether everything is on the wire now. */
  boolean flush() throws IOException {
    if (outLeft == null) return true;
    ch.write(outLeft);
    if (outLeft.hasRemaining()) return false;
    outLeft = null;
    return true;
  }

  private void runTasks() {
    Runnable task;
    while ((task = engine.getDelegatedTask()) != null) task.run();
  }

  /** Offers close_notify to the socket once (no wait), then closes it. */
  void close() {
    try {
      if (handshaken && outLeft == null) {
        engine.closeOutbound();
        ByteBuffer out = scratch.out(packetSize);
        engine.wrap(EMPTY, out);
        out.flip();
        ch.write(out);
      }
    } catch (IOException ignored) {
      // the peer may be gone: closing anyway
    }
    try {
      ch.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  /** Closes a connection's channel: through its link (close_notify offered) when it has one, else directly. */
  static void close(TlsLink tls, SocketChannel ch) {
    if (tls != null) {
      tls.close();
      return;
    }
    try {
      ch.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  /** The stream log's name of a TLS failure (class comment), or null when e is not one. */
  static String failureKind(Throwable e) {
    boolean tls = false;
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SSLException) tls = true;
    }
    if (!tls) return null;
    boolean untrusted = false;
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CertificateExpiredException) return EXPIRED;
      if (t instanceof CertificateNotYetValidException) return NOT_YET_VALID;
      String m = String.valueOf(t.getMessage());
      if (m.startsWith("No subject alternative") || m.startsWith("No name matching")) return WRONG_NAME;
      if (t instanceof CertPathValidatorException || t.getClass().getName().endsWith("ValidatorException")
          || t.getClass().getName().endsWith("SunCertPathBuilderException")) untrusted = true;
    }
    return untrusted ? UNTRUSTED : HANDSHAKE_FAILED;
  }
}
