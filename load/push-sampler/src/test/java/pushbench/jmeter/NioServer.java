package pushbench.jmeter;

// A local HTTP server for the mux engine's tests that holds thousands of connections on one selector
// thread (ChunkedServer takes a thread per connection). Every request (head and Content-Length body) is
// handed to the test's handler, which returns the answer as timed steps (bytes to write after a delay from
// the request, optionally closing or resetting the connection); connections are kept alive otherwise.
// It counts what happened, for the tests to compare with the engine's own counts.

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

final class NioServer implements AutoCloseable {
  /** One step of an answer: after delayMs from the request, write bytes (may be empty), then maybe end. */
  record Step(long delayMs, byte[] bytes, boolean close, boolean reset) { }

  /** The answer to a request: its body, the connection's ordinal (accept order) and the request's (global). */
  interface Handler { List<Step> answer(String body, int connection, int request); }

  static Step after(long ms, String text) {
    return new Step(ms, text.getBytes(StandardCharsets.UTF_8), false, false);
  }

  static Step closeAfter(long ms) { return new Step(ms, new byte[0], true, false); }

  static Step resetAfter(long ms) { return new Step(ms, new byte[0], false, true); }

  static String lengthAnswer(int status, String reason, String body) {
    return "HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: application/json\r\nContent-Length: "
        + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
  }

  static String chunkedHead() {
    return "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n";
  }

  static String chunk(String text) {
    return Integer.toHexString(text.getBytes(StandardCharsets.UTF_8).length) + "\r\n" + text + "\r\n";
  }

  final AtomicInteger accepted = new AtomicInteger();
  final AtomicInteger requests = new AtomicInteger();
  final AtomicInteger answersEnded = new AtomicInteger();
  /** Accept times (System.currentTimeMillis) and request bodies, in arrival order. */
  final Queue<Long> acceptMillis = new ConcurrentLinkedQueue<>();
  final Queue<String> bodies = new ConcurrentLinkedQueue<>();
  final Queue<Long> requestMillis = new ConcurrentLinkedQueue<>();

  private final ServerSocketChannel server;
  private final Selector selector;
  private final Handler handler;
  private final IntPredicate resetOnAccept;
  private final Thread thread;
  private final PriorityQueue<Due> due = new PriorityQueue<>();
  private long sequence;
  private volatile boolean closed;

  private record Due(long at, long seq, Conn conn, Step step, boolean last) implements Comparable<Due> {
    public int compareTo(Due o) { return at != o.at ? Long.compare(at, o.at) : Long.compare(seq, o.seq); }
  }

  private static final class Conn {
    final SocketChannel ch;
    final int ordinal;
    final ByteArrayOutputStream in = new ByteArrayOutputStream();
    final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
    boolean closeWhenWritten;

    Conn(SocketChannel ch, int ordinal) { this.ch = ch; this.ordinal = ordinal; }
  }

  NioServer(Handler handler) throws IOException { this(0, handler, n -> false); }

  /** port 0: any free port. resetOnAccept: connections (by accept ordinal) reset at once. */
  NioServer(int port, Handler handler, IntPredicate resetOnAccept) throws IOException {
    this.handler = handler;
    this.resetOnAccept = resetOnAccept;
    server = ServerSocketChannel.open();
    server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 8192);
    server.configureBlocking(false);
    selector = Selector.open();
    server.register(selector, SelectionKey.OP_ACCEPT);
    thread = new Thread(this::loop, "nio-test-server");
    thread.setDaemon(true);
    thread.start();
  }

  int port() { return server.socket().getLocalPort(); }

  private void loop() {
    try {
      while (!closed) {
        long now = System.currentTimeMillis();
        while (!due.isEmpty() && due.peek().at <= now) play(due.poll());
        long wait = due.isEmpty() ? 50 : Math.max(1, due.peek().at - now);
        selector.select(this::onKey, wait);
      }
    } catch (IOException | RuntimeException e) {
      if (!closed) e.printStackTrace();
    }
  }

  private void onKey(SelectionKey k) {
    try {
      if (k.isAcceptable()) {
        for (SocketChannel ch; (ch = server.accept()) != null; ) accept(ch);
        return;
      }
      Conn c = (Conn) k.attachment();
      if (k.isWritable()) flush(c);
      if (k.isValid() && k.isReadable()) read(c, k);
    } catch (IOException e) {
      close(k);
    }
  }

  private void accept(SocketChannel ch) throws IOException {
    int ordinal = accepted.getAndIncrement();
    acceptMillis.add(System.currentTimeMillis());
    if (resetOnAccept.test(ordinal)) {
      ch.setOption(StandardSocketOptions.SO_LINGER, 0);
      ch.close();
      return;
    }
    ch.configureBlocking(false);
    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    ch.register(selector, SelectionKey.OP_READ, new Conn(ch, ordinal));
  }

  private void read(Conn c, SelectionKey k) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(16384);
    int n = c.ch.read(b);
    if (n < 0) {
      close(k);
      return;
    }
    c.in.write(b.array(), 0, n);
    for (String body; (body = nextRequest(c)) != null; ) {
      int request = requests.getAndIncrement();
      bodies.add(body);
      long now = System.currentTimeMillis();
      requestMillis.add(now);
      List<Step> steps = handler.answer(body, c.ordinal, request);
      for (int i = 0; i < steps.size(); i++) {
        Step s = steps.get(i);
        due.add(new Due(now + s.delayMs(), sequence++, c, s, i == steps.size() - 1));
      }
    }
  }

  // One whole request (head and Content-Length body) taken from the connection's input, as its body.
  private static String nextRequest(Conn c) {
    byte[] all = c.in.toByteArray();
    String text = new String(all, StandardCharsets.ISO_8859_1);
    int headEnd = text.indexOf("\r\n\r\n");
    if (headEnd < 0) return null;
    int length = 0;
    for (String line : text.substring(0, headEnd).split("\r\n")) {
      if (line.toLowerCase().startsWith("content-length:")) length = Integer.parseInt(line.substring(15).trim());
    }
    int end = headEnd + 4 + length;
    if (all.length < end) return null;
    c.in.reset();
    c.in.write(all, end, all.length - end);
    return new String(all, headEnd + 4, length, StandardCharsets.UTF_8);
  }

  private void play(Due d) {
    Conn c = d.conn;
    if (!c.ch.isOpen()) return;
    try {
      if (d.step.reset()) {
        c.ch.setOption(StandardSocketOptions.SO_LINGER, 0);
        c.ch.close();
        return;
      }
      if (d.step.bytes().length > 0) c.out.add(ByteBuffer.wrap(d.step.bytes()));
      if (d.step.close()) c.closeWhenWritten = true;
      if (d.last) answersEnded.incrementAndGet();
      flush(c);
    } catch (IOException e) {
      try { c.ch.close(); } catch (IOException ignored) { /* gone */ }
    }
  }

  private void flush(Conn c) throws IOException {
    while (!c.out.isEmpty()) {
      ByteBuffer b = c.out.peek();
      c.ch.write(b);
      if (b.hasRemaining()) break;
      c.out.poll();
    }
    SelectionKey k = c.ch.keyFor(selector);
    if (c.out.isEmpty() && c.closeWhenWritten) {
      c.ch.close();
      return;
    }
    if (k != null && k.isValid()) k.interestOps(c.out.isEmpty() ? SelectionKey.OP_READ : SelectionKey.OP_READ | SelectionKey.OP_WRITE);
  }

  private static void close(SelectionKey k) {
    k.cancel();
    try { k.channel().close(); } catch (IOException ignored) { /* gone */ }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    selector.wakeup();
    try { thread.join(2000); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
    for (SelectionKey k : selector.keys()) {
      try { k.channel().close(); } catch (IOException ignored) { /* gone */ }
    }
    selector.close();
    server.close();
  }
}
