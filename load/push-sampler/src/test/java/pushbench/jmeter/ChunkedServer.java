package pushbench.jmeter;

// A local HTTP server for the push sampler's tests that writes exactly the bytes a test scripts: chunk
// boundaries, pauses, a connection cut in the middle of a record. Each accepted connection (TestServer: a
// thread per connection) reads one request (head and Content-Length body) per script step list and plays
// the next script.

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

final class ChunkedServer extends TestServer {
  /** One step of an answer. */
  interface Step { void play(OutputStream out, Socket s) throws Exception; }

  static Step write(String text) {
    return (out, s) -> send(out, text);
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

  private final BlockingQueue<List<Step>> answers = new LinkedBlockingQueue<>();
  final List<String> requests = new java.util.concurrent.CopyOnWriteArrayList<>();

  ChunkedServer() throws IOException {
    start("chunked");
  }

  /** Queues the answer to the next request received (on any connection). */
  void answer(Step... steps) { answers.add(List.of(steps)); }

  @Override
  void serve(Socket s, InputStream in, OutputStream out, int connection) throws Exception {
    for (;;) {
      String head = readHead(in);
      if (head == null) return;
      requests.add(head + new String(readBody(in, head), StandardCharsets.UTF_8));
      List<Step> steps = answers.poll(10, TimeUnit.SECONDS);
      if (steps == null) return;
      for (Step step : steps) {
        step.play(out, s);
        if (s.isClosed()) return;
      }
    }
  }

  static List<String> lines(String... l) { return new ArrayList<>(List.of(l)); }
}
