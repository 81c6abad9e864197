package pushbench.jmeter;

// A local WebSocket server for the mux engine's WebSocket tests (issue #38 item 3, docs/protocol.md
// "WebSocket"), in ChunkedServer's style (TestServer: a thread per connection), each connection playing
// the next queued script byte for byte. A script opens with its handshake (a 101 with the right Sec-WebSocket-Accept, one
// with a wrong one, or any other answer written as given), then, after a 101, reads the client's first
// frame (the subscription) and plays its steps: frames written whole or in pieces, pauses, the connection
// closed. Every frame the client sends after the subscription (a pong, a close) is kept with whether it
// was masked, as RFC 6455 asks of a client.

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

final class WsServer extends TestServer {
  /** One step after the handshake. */
  interface Step { void play(OutputStream out, Socket s) throws Exception; }

  /** A frame the client sent: its connection (accept order, 1-based), opcode, unmasked payload, mask bit. */
  record Frame(int connection, int opcode, byte[] payload, boolean masked) {
    String text() { return new String(payload, StandardCharsets.UTF_8); }
  }

  enum Handshake { ACCEPT, BAD_ACCEPT, RAW }

  private record Script(Handshake handshake, String raw, List<Step> steps) { }

  static Step write(byte[] bytes) {
    return (out, s) -> send(out, bytes);
  }

  /** Bytes written one at a time, a pause of pauseMs after each. */
  static Step trickle(byte[] bytes, long pauseMs) {
    return (out, s) -> {
      for (byte b : bytes) {
        out.write(b);
        out.flush();
        Thread.sleep(pauseMs);
      }
    };
  }

  static Step pause(long ms) { return (out, s) -> Thread.sleep(ms); }

  static final Step CLOSE = (out, s) -> s.close();

  /** A server frame (never masked) of this opcode, FIN bit and payload. */
  static byte[] frame(int opcode, boolean fin, byte[] payload) {
    int n = payload.length;
    ByteArrayOutputStream f = new ByteArrayOutputStream();
    f.write((fin ? 0x80 : 0) | opcode);
    if (n < 126) {
      f.write(n);
    } else if (n < 65536) {
      f.write(126);
      f.write(n >>> 8);
      f.write(n & 0xFF);
    } else {
      f.write(127);
      for (int i = 7; i >= 0; i--) f.write((int) (((long) n >>> (8 * i)) & 0xFF));
    }
    f.writeBytes(payload);
    return f.toByteArray();
  }

  static byte[] text(String s) { return frame(WsFrames.TEXT, true, s.getBytes(StandardCharsets.UTF_8)); }

  static byte[] close(int code, String reason) {
    byte[] r = reason.getBytes(StandardCharsets.UTF_8);
    byte[] p = new byte[2 + r.length];
    p[0] = (byte) (code >>> 8);
    p[1] = (byte) code;
    System.arraycopy(r, 0, p, 2, r.length);
    return frame(WsFrames.CLOSE, true, p);
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) out.writeBytes(p);
    return out.toByteArray();
  }

  private final BlockingQueue<Script> scripts = new LinkedBlockingQueue<>();
  final List<String> requests = new CopyOnWriteArrayList<>();
  final List<Frame> subscriptions = new CopyOnWriteArrayList<>();
  final List<Frame> received = new CopyOnWriteArrayList<>();

  WsServer() throws IOException {
    start("ws");
  }

  /** The next connection gets a 101 with the right accept, then these steps. */
  void accept(Step... steps) { scripts.add(new Script(Handshake.ACCEPT, null, List.of(steps))); }

  /** The next connection gets a 101 whose Sec-WebSocket-Accept is not its key's, then these steps. */
  void acceptBadly(Step... steps) { scripts.add(new Script(Handshake.BAD_ACCEPT, null, List.of(steps))); }

  /** The next connection gets this answer as written (a refusal), then is closed. */
  void answer(String raw) { scripts.add(new Script(Handshake.RAW, raw, List.of(CLOSE))); }

  @Override
  void serve(Socket s, InputStream raw, OutputStream out, int connection) throws Exception {
    DataInputStream in = new DataInputStream(raw);
    String request = readHead(in);
    if (request == null) return;
    requests.add(request);
    Script script = scripts.poll(10, TimeUnit.SECONDS);
    if (script == null) return;
    if (script.handshake == Handshake.RAW) {
      send(out, script.raw);
      return;
    }
    String key = header(request, "Sec-WebSocket-Key");
    String accept = script.handshake == Handshake.ACCEPT ? WsFrames.acceptOf(key) : WsFrames.acceptOf("x" + key);
    send(out, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
        + accept + "\r\n\r\n");
    if (script.handshake == Handshake.ACCEPT) {
      Frame sub = readFrame(in, connection);
      if (sub == null) return;
      subscriptions.add(sub);
      Thread reader = new Thread(() -> readAll(in, connection), "ws-read-" + connection);
      reader.setDaemon(true);
      reader.start();
    }
    for (Step step : script.steps) {
      step.play(out, s);
      if (s.isClosed()) return;
    }
    Thread.sleep(300);   // let the client's answer (a close) arrive before the connection ends
  }

  private void readAll(DataInputStream in, int connection) {
    try {
      for (Frame f; (f = readFrame(in, connection)) != null; ) received.add(f);
    } catch (IOException e) {
      // closed
    }
  }

  // One client frame, unmasked; null at the connection's end.
  private static Frame readFrame(DataInputStream in, int connection) throws IOException {
    int b0 = in.read();
    if (b0 < 0) return null;
    int b1 = in.readUnsignedByte();
    long n = b1 & 0x7F;
    if (n == 126) n = in.readUnsignedShort();
    else if (n == 127) n = in.readLong();
    boolean masked = (b1 & 0x80) != 0;
    byte[] mask = new byte[4];
    if (masked) in.readFully(mask);
    byte[] payload = new byte[(int) n];
    in.readFully(payload);
    if (masked) for (int i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
    return new Frame(connection, b0 & 0x0F, payload, masked);
  }

  /** The bytes of b from..to, for writing a frame in pieces. */
  static byte[] slice(byte[] b, int from, int to) { return Arrays.copyOfRange(b, from, to); }
}
