// The floor of pulling (issue #48 item 2; bench/engine-floor.sh --modes pull, docs/engine.md "The floor for
// pull"): a bare Java NIO client, one selector thread, non-blocking SocketChannels, keep-alive HTTP/1.1 and
// one direct read buffer, that does what one of the mux engine's pull connections does and nothing else: it
// sends the built-in pull (`POST /request`, body {"type":"pull","events":["<event>"],"cursor":<cursor>}, the
// cursor {} before the first answer, then the one the last answer gave: its first "cursor":{...}, as
// load/push-sampler MuxRequests / MuxConnection.cursorOf), reads the answer to its end (Content-Length or
// chunked, as the server frames it), counts it, waits the pull interval on a timer (millisecond ticks, as
// the engine's) and pulls again; a connection the server closes (Connection: close, or its end) is opened
// again for the next pull. No parsing beyond the framing and the cursor, no log, no object per answer.
//
//   java -cp <classes> PullFloor <host> <port> <connections> <event> <interval ms> <ramp s> <server pid> <warmup s> <window s>
//
// Connection i is opened at i × <ramp s> / <connections> and pulls at once, so the pulls are spread over the
// interval as the engine's ramp-up spreads them. Once every connection has had its first answer (200) or
// failed, and <warmup s> more, it measures over <window s> as bench/StreamFloor.java does (its CPU and the
// server's from /proc/<pid>/stat, the host's from /proc/stat) and prints one JSON line on stdout:
//   {"mode":"pull","connections","intervalMs","open","failed","windowS","records","recordsPerSecond",
//    "floorCpuPercent","serverCpuPercent","otherCpuPercent","floorUsPerRecord","serverUsPerRecord",
//    "floorOverServer","bytesPerAnswer","connects","noCursor","errors"}
// A record is one pull answer (the engine's one record per answer); bytesPerAnswer: head and body, mean over
// the window; connects: connections opened in the window; noCursor: answers in the window without a cursor;
// errors: pulls in the window that failed after their connection's first answer (each pulls again after
// the interval on a new connection). `failed`: connections that never answered 200.
// Exit 0 when no connection failed, 1 otherwise (the line is printed either way).
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;

public final class PullFloor {
  private static final int MAX_PENDING_CONNECTS = 256;
  private static final byte[] STATUS_OK = ascii("HTTP/1.1 200");
  private static final byte[] CURSOR = ascii("\"cursor\":{");
  private static final byte[] HEAD_END = ascii("\r\n\r\n");
  private static final byte[] CONTENT_LENGTH = ascii("\r\ncontent-length:");
  private static final byte[] CHUNKED = ascii("\r\ntransfer-encoding: chunked");
  private static final byte[] CLOSE = ascii("\r\nconnection: close");
  private static final byte[] BRACE = ascii("}");
  private static final int CURSOR_MAX = 256;   // a cursor's bytes, {"event1":n}: far below

  // Written by the selector thread, read by the main thread at the window's ends.
  private static volatile long answers, answerBytes, connects, noCursor, errors;
  private static volatile int open, failed;

  public static void main(String[] args) throws Exception {
    if (args.length != 9) {
      System.err.println("usage: java PullFloor <host> <port> <connections> <event> <interval ms> <ramp s> <server pid> <warmup s> <window s>");
      System.exit(2);
    }
    InetSocketAddress address = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
    int connections = Integer.parseInt(args[2]);
    String event = args[3];
    int intervalMs = Integer.parseInt(args[4]);
    int rampS = Integer.parseInt(args[5]);
    long serverPid = Long.parseLong(args[6]);
    int warmup = Integer.parseInt(args[7]);
    int window = Integer.parseInt(args[8]);
    Puller puller = new Puller(address, connections, event, intervalMs, rampS * 1000L);
    Thread reader = new Thread(() -> {
      try {
        puller.run();
      } catch (IOException e) {
        e.printStackTrace();
        System.exit(1);
      }
    }, "floor-selector");
    reader.setDaemon(true);
    reader.start();

    while (open + failed < connections) Thread.sleep(100);
    Thread.sleep(warmup * 1000L);
    StreamFloor.Ticks from = StreamFloor.Ticks.now(serverPid);
    long answers0 = answers, bytes0 = answerBytes, connects0 = connects, noCursor0 = noCursor, errors0 = errors;
    long t0 = System.nanoTime();
    Thread.sleep(window * 1000L);
    StreamFloor.Ticks to = StreamFloor.Ticks.now(serverPid);
    long answers1 = answers, bytes1 = answerBytes, connects1 = connects, noCursor1 = noCursor, errors1 = errors;
    double seconds = (System.nanoTime() - t0) / 1e9;
    long counted = answers1 - answers0;
    System.out.println("{\"mode\":\"pull\",\"connections\":" + connections + ",\"intervalMs\":" + intervalMs
        + ",\"open\":" + open + ",\"failed\":" + failed + "," + StreamFloor.windowFields(from, to, seconds, counted)
        + ",\"bytesPerAnswer\":" + StreamFloor.json(counted == 0 ? Double.NaN : (double) (bytes1 - bytes0) / counted, 1)
        + ",\"connects\":" + (connects1 - connects0) + ",\"noCursor\":" + (noCursor1 - noCursor0)
        + ",\"errors\":" + (errors1 - errors0) + "}");
    System.out.flush();
    System.exit(failed == 0 ? 0 : 1);
  }

  // The selector thread's state: per connection its channel, its cursor, the answer read so far, and one
  // timer queue (every wait is the same interval, so the due times are queued in order: a ring).
  static final class Puller {
    private final InetSocketAddress address;
    private final int connections;
    private final int intervalMs;
    private final long rampMs;
    private final byte[] head;           // the request up to Content-Length's value
    private final byte[] bodyHead;       // {"type":"pull","events":[...],"cursor":
    private final Selector selector;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 16);
    private final ByteBuffer out = ByteBuffer.allocateDirect(1 << 12);
    private final SocketChannel[] channels;
    private final byte[][] cursors;      // per connection: its cursor, in cursorLength[id] bytes
    private final int[] cursorLength;
    private final byte[][] answer;       // per connection: the answer's bytes read so far
    private final int[] answerLength;
    private final boolean[] answeredOnce;
    private final int[] queue;
    private final long[] dueAt;
    private int queueHead, queueSize;
    private int pending;                 // connects not yet finished
    private long answersSeen, bytesSeen, connectsMade, cursorsMissing, errorsSeen;

    Puller(InetSocketAddress address, int connections, String event, int intervalMs, long rampMs) throws IOException {
      this.address = address;
      this.connections = connections;
      this.intervalMs = intervalMs;
      this.rampMs = rampMs;
      String host = address.getHostString() + ":" + address.getPort();
      this.head = ascii("POST /request HTTP/1.1\r\nHost: " + host
          + "\r\nContent-Type: application/json\r\nConnection: keep-alive\r\nContent-Length: ");
      this.bodyHead = ascii("{\"type\":\"pull\",\"events\":[\"" + event + "\"],\"cursor\":");
      this.selector = Selector.open();
      this.channels = new SocketChannel[connections];
      this.cursors = new byte[connections][CURSOR_MAX];
      this.cursorLength = new int[connections];
      for (byte[] cursor : cursors) cursor[0] = '{';
      for (byte[] cursor : cursors) cursor[1] = '}';
      Arrays.fill(cursorLength, 2);
      this.answer = new byte[connections][];
      this.answerLength = new int[connections];
      this.answeredOnce = new boolean[connections];
      this.queue = new int[connections];
      this.dueAt = new long[connections];
    }

    void run() throws IOException {
      long start = nowMs();
      int started = 0;
      while (true) {
        long now = nowMs();
        while (started < connections && pending < MAX_PENDING_CONNECTS
            && now >= start + started * rampMs / connections) {
          connect(started++);
        }
        while (queueSize > 0 && dueAt[queueHead] <= now) {
          int id = queue[queueHead];
          queueHead = (queueHead + 1) % connections;
          queueSize--;
          if (channels[id] == null) connect(id); else pull(id);
        }
        long next = Long.MAX_VALUE;
        if (started < connections) next = start + started * rampMs / connections;
        if (queueSize > 0) next = Math.min(next, dueAt[queueHead]);
        if (next == Long.MAX_VALUE) selector.select(); else if (next <= now) selector.selectNow(); else selector.select(next - now);
        Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
        while (keys.hasNext()) {
          SelectionKey key = keys.next();
          keys.remove();
          int id = (Integer) key.attachment();
          try {
            if (key.isConnectable()) {
              pending--;
              channels[id].finishConnect();
              key.interestOps(SelectionKey.OP_READ);
              pull(id);
            } else {
              read(id);
            }
          } catch (IOException e) {
            fail(id);
          }
        }
        answers = answersSeen;
        answerBytes = bytesSeen;
        connects = connectsMade;
        noCursor = cursorsMissing;
        errors = errorsSeen;
      }
    }

    private void connect(int id) throws IOException {
      SocketChannel channel = SocketChannel.open();
      channel.configureBlocking(false);
      channels[id] = channel;
      connectsMade++;
      try {
        if (channel.connect(address)) {
          channel.register(selector, SelectionKey.OP_READ, id);
          pull(id);
        } else {
          channel.register(selector, SelectionKey.OP_CONNECT, id);
          pending++;
        }
      } catch (IOException e) {
        fail(id);
      }
    }

    // One pull: the request with this connection's cursor, written through the one direct write buffer (a
    // few hundred bytes: a socket's buffer takes them whole, or the connection fails).
    private void pull(int id) {
      int bodyLength = bodyHead.length + cursorLength[id] + 1;
      out.clear();
      out.put(head);
      putDecimal(out, bodyLength);
      out.put(HEAD_END).put(bodyHead).put(cursors[id], 0, cursorLength[id]).put((byte) '}');
      out.flip();
      try {
        channels[id].write(out);
        if (out.hasRemaining()) throw new IOException("request not written whole");
      } catch (IOException e) {
        fail(id);
      }
    }

    // Reads what arrived; once the answer is whole: counted, its cursor kept, the next pull queued.
    private void read(int id) throws IOException {
      buffer.clear();
      int n = channels[id].read(buffer);
      if (n < 0) {
        if (answerLength[id] > 0) throw new IOException("closed mid-answer");
        reopenLater(id);   // a kept-alive connection the server closed between pulls
        return;
      }
      byte[] a = answer[id];
      if (a == null || a.length < answerLength[id] + n) a = answer[id] = Arrays.copyOf(a == null ? new byte[1024] : a, Math.max(1024, 2 * (answerLength[id] + n)));
      buffer.flip();
      buffer.get(a, answerLength[id], n);
      int length = answerLength[id] += n;
      int end = answerEnd(a, length);
      if (end < 0) return;
      if (!startsWith(a, STATUS_OK)) throw new IOException("not 200");
      if (!answeredOnce[id]) {
        answeredOnce[id] = true;
        open++;
      }
      answersSeen++;
      bytesSeen += end;
      int c = indexOf(a, 0, end, CURSOR);
      if (c < 0) {
        cursorsMissing++;
      } else {
        int from = c + CURSOR.length - 1, close = indexOf(a, from + 1, end, BRACE);
        if (close < 0 || close + 1 - from > CURSOR_MAX) {
          cursorsMissing++;
        } else {
          System.arraycopy(a, from, cursors[id], 0, close + 1 - from);
          cursorLength[id] = close + 1 - from;
        }
      }
      boolean closes = indexOfIgnoreCase(a, headEnd(a, length), CLOSE) >= 0;
      answerLength[id] = 0;
      if (closes) {
        channels[id].keyFor(selector).cancel();
        channels[id].close();
        channels[id] = null;
      }
      enqueue(id, nowMs() + intervalMs);
    }

    private void reopenLater(int id) throws IOException {
      channels[id].keyFor(selector).cancel();
      channels[id].close();
      channels[id] = null;
    }

    // A connection that never answered has failed for good; one that did counts an error and pulls again
    // after the interval on a new connection (the engine's backoff waits at least the pull interval).
    private void fail(int id) {
      try {
        SocketChannel channel = channels[id];
        if (channel != null) {
          SelectionKey key = channel.keyFor(selector);
          if (key != null) key.cancel();
          channel.close();
        }
      } catch (IOException ignored) {
        // closing a failed connection: nothing more to do
      }
      channels[id] = null;
      answerLength[id] = 0;
      if (answeredOnce[id]) {
        errorsSeen++;
        enqueue(id, nowMs() + intervalMs);
      } else {
        failed++;
      }
    }

    private void enqueue(int id, long at) {
      int tail = (queueHead + queueSize) % connections;
      queue[tail] = id;
      dueAt[tail] = at;
      queueSize++;
    }
  }

  // The length of the whole answer in a[0, length) (head and body), or -1 while it is not whole: the body's
  // Content-Length, or chunked to its last chunk's end.
  static int answerEnd(byte[] a, int length) {
    int headEnd = headEnd(a, length);
    if (headEnd < 0) return -1;
    int lengthAt = indexOfIgnoreCase(a, headEnd, CONTENT_LENGTH);
    if (lengthAt >= 0) {
      int i = lengthAt + CONTENT_LENGTH.length;
      while (a[i] == ' ') i++;
      long body = 0;
      while (a[i] >= '0' && a[i] <= '9') body = body * 10 + (a[i++] - '0');
      return headEnd + body <= length ? (int) (headEnd + body) : -1;
    }
    if (indexOfIgnoreCase(a, headEnd, CHUNKED) < 0) throw new IllegalStateException("an answer neither sized nor chunked");
    int i = headEnd;
    while (true) {   // size CRLF data CRLF ..., ended by 0 CRLF CRLF (no trailers)
      int size = 0, j = i;
      while (j < length && a[j] != '\r') {
        int d = Character.digit(a[j] & 0xff, 16);
        if (d >= 0) size = size * 16 + d;
        j++;
      }
      if (j + 1 >= length) return -1;
      int next = j + 2 + size + 2;
      if (next > length) return -1;
      if (size == 0) return next;
      i = next;
    }
  }

  // The index just past the head's blank line in a[0, length), or -1.
  static int headEnd(byte[] a, int length) {
    int i = indexOf(a, 0, length, HEAD_END);
    return i < 0 ? -1 : i + HEAD_END.length;
  }

  static int indexOf(byte[] a, int from, int to, byte[] what) {
    outer:
    for (int i = from; i <= to - what.length; i++) {
      for (int j = 0; j < what.length; j++) if (a[i + j] != what[j]) continue outer;
      return i;
    }
    return -1;
  }

  // what in lower case, against a[0, to) in any case (header names and values).
  static int indexOfIgnoreCase(byte[] a, int to, byte[] what) {
    outer:
    for (int i = 0; i <= to - what.length; i++) {
      for (int j = 0; j < what.length; j++) {
        byte b = a[i + j];
        if (b >= 'A' && b <= 'Z') b += 'a' - 'A';
        if (b != what[j]) continue outer;
      }
      return i;
    }
    return -1;
  }

  // value's decimal digits into b (value >= 0), without a String.
  static void putDecimal(ByteBuffer b, int value) {
    int digits = 1;
    for (int v = value; v >= 10; v /= 10) digits++;
    int at = b.position() + digits;
    for (int i = at - 1, v = value; i >= b.position(); i--, v /= 10) b.put(i, (byte) ('0' + v % 10));
    b.position(at);
  }

  private static boolean startsWith(byte[] a, byte[] prefix) {
    for (int i = 0; i < prefix.length; i++) if (a[i] != prefix[i]) return false;
    return true;
  }

  private static long nowMs() {
    return System.nanoTime() / 1_000_000;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
