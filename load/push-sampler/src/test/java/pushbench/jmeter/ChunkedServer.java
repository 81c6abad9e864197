package pushbench.jmeter;

// A local HTTP server for the push sampler's tests that writes exactly the bytes a test scripts: chunk
// boundaries, pauses, a connection cut in the middle of a record. Each accepted connection reads one
// request (head and Content-Length body) per script step list and plays the next script.

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

final class ChunkedServer implements AutoCloseable {
  /** One step of an answer. */
  interface Step { void play(OutputStream out, Socket s) throws Exception; }

  static Step write(String text) {
    return (out, s) -> { out.write(text.getBytes(StandardCharsets.UTF_8)); out.flush(); };
  }

  static Step chunk(String text) {
    byte[] b = text.getBytes(StandardCharsets.UTF_8);
    return write(Integer.toHexString(b.length) + "\r\n" + text + "\r\n");
  }

  static Step pause(long ms) { return (out, s) -> Thread.sleep(ms); }

  static final Step END = write("0\r\n\r\n");
  static final Step CLOSE = (out, s) -> s.close();
  static final Step HOLD = (out, s) -> Thread.sleep(60_000);

  static Step chunkedHead(int status, String reason, String contentType) {
    return write("HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: " + contentType
        + "\r\nTransfer-Encoding: chunked\r\n\r\n");
  }

  static Step lengthHead(int status, String reason, String body, boolean close) {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    return write("HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: application/json\r\nContent-Length: "
        + b.length + (close ? "\r\nConnection: close" : "") + "\r\n\r\n" + body);
  }

  private final ServerSocket server;
  private final BlockingQueue<List<Step>> answers = new LinkedBlockingQueue<>();
  final List<String> requests = new java.util.concurrent.CopyOnWriteArrayList<>();
  final java.util.concurrent.atomic.AtomicInteger connections = new java.util.concurrent.atomic.AtomicInteger();
  private final Thread acceptor;

  ChunkedServer() throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::acceptLoop, "chunked-server");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() { return server.getLocalPort(); }

  /** Queues the answer to the next request received (on any connection). */
  void answer(Step... steps) { answers.add(List.of(steps)); }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        connections.incrementAndGet();
        Thread t = new Thread(() -> serve(s), "chunked-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket s) {
    try (s) {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      for (;;) {
        String request = readRequest(in);
        if (request == null) return;
        requests.add(request);
        List<Step> steps = answers.poll(10, TimeUnit.SECONDS);
        if (steps == null) return;
        for (Step step : steps) {
          step.play(out, s);
          if (s.isClosed()) return;
        }
      }
    } catch (Exception e) {
      // the client went away: nothing to do
    }
  }

  // Head and Content-Length body of one request, as text; null at the connection's end.
  private static String readRequest(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int c;
    int matched = 0;
    while (matched < 4) {
      c = in.read();
      if (c < 0) return null;
      head.write(c);
      matched = (c == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (c == '\r' ? 1 : 0);
    }
    String text = head.toString(StandardCharsets.ISO_8859_1);
    int length = 0;
    for (String line : text.split("\r\n")) {
      if (line.toLowerCase().startsWith("content-length:")) length = Integer.parseInt(line.substring(15).trim());
    }
    byte[] body = in.readNBytes(length);
    return text + new String(body, StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    server.close();
  }

  static List<String> lines(String... l) { return new ArrayList<>(List.of(l)); }
}
