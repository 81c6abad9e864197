package pushbench.jmeter;

// RFC 6455 for the mux engine's WebSocket streams (issue #38 item 3; docs/protocol.md "WebSocket", "Replay
// and gaps"; docs/engine.md "WebSocket"): the client's side of the opening handshake (a random
// Sec-WebSocket-Key, the Sec-WebSocket-Accept it must get back), its masked frames (the subscription, a
// pong, a close), and the reading of the server's frames, push-style as AnswerParser reads HTTP: the caller
// feeds the bytes after the 101 as they arrive (any slicing), and each complete text message goes to the
// Listener with the stamp of the read that completed it. Rules:
// - a text message lying whole in the caller's bytes (one frame) is handed over from there; only a message
//   split across reads or fragmented (FIN 0, continuation frames) is copied, into a buffer allocated then and
//   released after it (at most MAX_MESSAGE bytes: a longer one breaks the stream), so a connection waiting
//   for its next frame holds no buffer;
// - control frames (ping, pong, close: at most 125 bytes, never fragmented) may come between the fragments
//   of a message; a ping is handed over for its pong, a pong ignored, a close (its code, 1005 when it has
//   none, and its reason) ends the reading: bytes after it are not read;
// - what breaks RFC 6455 from a server (a masked frame, RSV bits without an extension, a binary message,
//   an unknown opcode, a continuation outside a message, a fragmented or long control frame) is an
//   IOException naming it; so is a message over MAX_MESSAGE.
// The same class records, per connection, the last cycle per subscribed name a stream got (noteCycle: an
// event or replay record's cycle, a gap record's `to`), read from the record's leading bytes (the servers'
// one layout, docs/protocol.md "One parser for all three") without parsing its JSON, so that a reconnection
// resumes with a cursor.

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.SplittableRandom;

final class WsFrames {
  /** Longest message accepted (a record): AnswerParser's longest record. */
  static final int MAX_MESSAGE = AnswerParser.MAX_LINE;
  static final int CONTINUATION = 0x0;
  static final int TEXT = 0x1;
  static final int BINARY = 0x2;
  static final int CLOSE = 0x8;
  static final int PING = 0x9;
  static final int PONG = 0xA;
  static final int NO_STATUS = 1005;
  private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

  /** What a stream's frames give the connection reading them. */
  interface Listener {
    /** A complete text message, b[off, off+len), completed by the read stamped micros. */
    void message(long micros, byte[] b, int off, int len) throws IOException;

    /** A ping: answer it with a pong of this payload. */
    void ping(byte[] payload) throws IOException;

    /** A close frame: its code (NO_STATUS without one) and reason. Nothing after it is read. */
    void close(int code, String reason) throws IOException;
  }

  // Phases of a frame.
  private static final int FIRST = 0;     // FIN, RSV, opcode
  private static final int LENGTH = 1;    // MASK, payload length
  private static final int EXTENDED = 2;  // the 2 or 8 bytes of an extended length
  private static final int PAYLOAD = 3;
  private static final int CLOSED = 4;    // a close frame was read

  private int phase = FIRST;
  private int opcode;
  private boolean fin;
  private int extendedLeft;
  private long remaining;
  private boolean inMessage;              // a fragmented text message is open (its continuations follow)
  private AnswerParser.Line message;      // the message read so far, only while it spans reads or frames
  private byte[] control;                 // a control frame's payload, while it is read
  private int controlLen;

  boolean closed() { return phase == CLOSED; }

  /** The bytes read so far end inside a frame or a fragmented message. */
  boolean midFrame() { return phase != FIRST || inMessage; }

  /** Bytes of a message (or control frame) the stream broke off inside: what was read of it. */
  int partialBytes() {
    return (message == null ? 0 : message.len) + (control == null ? 0 : controlLen);
  }

  /** Feeds b[off, off+len), read at stamp; stops after a close frame. */
  void feed(byte[] b, int off, int len, long stamp, Listener l) throws IOException {
    int pos = off;
    int limit = off + len;
    while (pos < limit && phase != CLOSED) {
      switch (phase) {
        case FIRST: first(b[pos++]); break;
        case LENGTH: length(b[pos++], stamp, l); break;
        case EXTENDED: extended(b[pos++], stamp, l); break;
        default: pos = payload(b, pos, limit, stamp, l); break;
      }
    }
  }

  private void first(byte v) throws IOException {
    if ((v & 0x70) != 0) throw new IOException("WebSocket frame with RSV bits set (no extension was agreed)");
    fin = (v & 0x80) != 0;
    opcode = v & 0x0F;
    switch (opcode) {
      case CONTINUATION:
        if (!inMessage) throw new IOException("WebSocket continuation frame outside a message");
        break;
      case TEXT:
        if (inMessage) throw new IOException("WebSocket text frame inside a fragmented message");
        break;
      case BINARY: throw new IOException("WebSocket binary message (the protocol's records are text)");
      case CLOSE: case PING: case PONG:
        if (!fin) throw new IOException("WebSocket control frame fragmented");
        break;
      default: throw new IOException("WebSocket frame of unknown opcode " + opcode);
    }
    phase = LENGTH;
  }

  private void length(byte v, long stamp, Listener l) throws IOException {
    if ((v & 0x80) != 0) throw new IOException("WebSocket frame masked by the server");
    int n = v & 0x7F;
    remaining = 0;
    if (n == 126 || n == 127) {
      if (opcode >= CLOSE) throw new IOException("WebSocket control frame longer than 125 bytes");
      extendedLeft = n == 126 ? 2 : 8;
      phase = EXTENDED;
      return;
    }
    remaining = n;
    headerRead(stamp, l);
  }

  private void extended(byte v, long stamp, Listener l) throws IOException {
    remaining = (remaining << 8) | (v & 0xFF);
    if (--extendedLeft > 0) return;
    headerRead(stamp, l);
  }

  private void headerRead(long stamp, Listener l) throws IOException {
    if (remaining < 0 || remaining + (message == null ? 0 : message.len) > MAX_MESSAGE) {
      throw new IOException("WebSocket message longer than " + MAX_MESSAGE + " bytes");
    }
    if (opcode >= CLOSE) {
      control = new byte[(int) remaining];
      controlLen = 0;
    }
    phase = PAYLOAD;
    if (remaining == 0) frameEnded(null, 0, 0, stamp, l);
  }

  private int payload(byte[] b, int pos, int limit, long stamp, Listener l) throws IOException {
    int take = (int) Math.min(remaining, limit - pos);
    remaining -= take;
    if (control != null) {
      System.arraycopy(b, pos, control, controlLen, take);
      controlLen += take;
      if (remaining == 0) frameEnded(null, 0, 0, stamp, l);
    } else if (remaining == 0 && fin && message == null) {   // a whole message in these bytes: no copy
      frameEnded(b, pos, take, stamp, l);
    } else {
      if (message == null) message = new AnswerParser.Line();
      message.append(b, pos, take);
      if (remaining == 0) frameEnded(null, 0, 0, stamp, l);
    }
    return pos + take;
  }

  // A frame's payload is read: a message ends at FIN, a control frame acts.
  private void frameEnded(byte[] b, int off, int len, long stamp, Listener l) throws IOException {
    phase = FIRST;
    if (opcode >= CLOSE) {
      byte[] payload = control;
      control = null;
      controlLen = 0;
      if (opcode == PING) {
        l.ping(payload);
      } else if (opcode == CLOSE) {
        phase = CLOSED;
        int code = payload.length >= 2 ? ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF) : NO_STATUS;
        String reason = payload.length > 2 ? new String(payload, 2, payload.length - 2, StandardCharsets.UTF_8) : "";
        l.close(code, reason);
      }
      return;
    }
    if (!fin) {
      inMessage = true;
      return;
    }
    inMessage = false;
    if (b != null) {
      l.message(stamp, b, off, len);
    } else if (message != null) {
      AnswerParser.Line m = message;
      message = null;   // released: a held connection keeps no buffer
      if (m.len > 0) l.message(stamp, m.buf, 0, m.len);
    }
  }

  // ---- the client's frames and handshake ------------------------------------------------------------------

  /** A masked frame (FIN set) of this opcode and payload, as a client must send it. */
  static byte[] frame(int opcode, byte[] payload, SplittableRandom random) {
    int n = payload.length;
    int head = n < 126 ? 2 : n < 65536 ? 4 : 10;
    byte[] f = new byte[head + 4 + n];
    f[0] = (byte) (0x80 | opcode);
    if (n < 126) {
      f[1] = (byte) (0x80 | n);
    } else if (n < 65536) {
      f[1] = (byte) (0x80 | 126);
      f[2] = (byte) (n >>> 8);
      f[3] = (byte) n;
    } else {
      f[1] = (byte) (0x80 | 127);
      for (int i = 0; i < 8; i++) f[2 + i] = (byte) ((long) n >>> (56 - 8 * i));
    }
    int mask = random.nextInt();
    for (int i = 0; i < 4; i++) f[head + i] = (byte) (mask >>> (24 - 8 * i));
    for (int i = 0; i < n; i++) f[head + 4 + i] = (byte) (payload[i] ^ f[head + (i & 3)]);
    return f;
  }

  /** A close frame's payload: the code, two bytes. */
  static byte[] closePayload(int code) {
    return new byte[] {(byte) (code >>> 8), (byte) code};
  }

  /** A Sec-WebSocket-Key: 16 random bytes in base64. */
  static String key(SplittableRandom random) {
    byte[] k = new byte[16];
    for (int i = 0; i < 16; i += 8) {
      long v = random.nextLong();
      for (int j = 0; j < 8; j++) k[i + j] = (byte) (v >>> (8 * j));
    }
    return Base64.getEncoder().encodeToString(k);
  }

  /** The Sec-WebSocket-Accept a server must answer this key with (RFC 6455 4.2.2). */
  static String acceptOf(String key) {
    try {
      byte[] sha1 = MessageDigest.getInstance("SHA-1").digest((key + GUID).getBytes(StandardCharsets.US_ASCII));
      return Base64.getEncoder().encodeToString(sha1);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-1 in this JDK", e);
    }
  }

  // ---- the cursor -----------------------------------------------------------------------------------------

  private static final byte[] RESPONSE = ascii("{\"response\":{\"");
  private static final byte[] EVENT = ascii("event\":{\"name\":\"");
  private static final byte[] REPLAY = ascii("replay\":{\"name\":\"");
  private static final byte[] GAP = ascii("gap\":{\"name\":\"");
  private static final byte[] CYCLE = ascii("\",\"cycle\":");
  private static final byte[] FROM = ascii("\",\"from\":");
  private static final byte[] TO = ascii(",\"to\":");

  /**
   * The cycle a record moves its stream's cursor to, into cycles[k] for names[k]: an event or replay
   * record's cycle, a gap record's `to`. Other records (clear, an error) and names not subscribed leave
   * cycles as they were. Reads the record's leading bytes only.
   */
  static void noteCycle(byte[] b, int off, int len, byte[][] names, long[] cycles) {
    int end = off + len;
    if (!startsWith(b, off, end, RESPONSE)) return;
    int p = off + RESPONSE.length;
    boolean gap = false;
    if (startsWith(b, p, end, EVENT)) p += EVENT.length;
    else if (startsWith(b, p, end, REPLAY)) p += REPLAY.length;
    else if (startsWith(b, p, end, GAP)) { p += GAP.length; gap = true; }
    else return;
    int k = 0;
    while (k < names.length && !(startsWith(b, p, end, names[k]) && p + names[k].length < end && b[p + names[k].length] == '"')) k++;
    if (k == names.length) return;
    p += names[k].length;
    if (gap) {
      if (!startsWith(b, p, end, FROM)) return;
      p += FROM.length;
      while (p < end && b[p] >= '0' && b[p] <= '9') p++;
      if (!startsWith(b, p, end, TO)) return;
      p += TO.length;
    } else {
      if (!startsWith(b, p, end, CYCLE)) return;
      p += CYCLE.length;
    }
    long v = 0;
    int digits = 0;
    for (; p < end && b[p] >= '0' && b[p] <= '9' && digits < 16; p++, digits++) v = v * 10 + (b[p] - '0');
    if (digits > 0) cycles[k] = v;
  }

  private static boolean startsWith(byte[] b, int at, int end, byte[] lit) {
    if (end - at < lit.length) return false;
    for (int i = 0; i < lit.length; i++) if (b[at + i] != lit[i]) return false;
    return true;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
