package pushbench.jmeter;

// What a connection per answer costs the engine's selector thread (issue #48 item 2; bench/connect-cost.sh
// runs it): the load of Tomcat 6 long polls answered by an event, without Tomcat. A server process holds
// every request and answers all of them at each tick (an emit cycle) with a 321-byte body, Content-Length
// and Connection: close, as Tomcat 6's servlet does, then waits for the client to hang up; the client, one
// selector thread like a mux thread, reads each answer whole, closes and connects again at once.
//
//   java -cp <classes> pushbench.jmeter.ConnectCost server <port (0: any)> <tick ms>    prints "ready <port>"
//   java -cp <classes> pushbench.jmeter.ConnectCost client <port> <connections> <seconds> <jdk|dial>
//
// Client variants: jdk, the connect path the engine had (SocketChannel.open(): the JDK's dual-stack IPv6
// socket; register OP_CONNECT; finishConnect at its wake-up; interest OP_READ; write); dial, the engine's
// Dial (an IPv4 socket; finishConnect right after connect; registered OP_READ and written at once when it
// is established). The client prints one JSON line: answers, the selector thread's CPU (ThreadMXBean, user
// + system) per answer in µs over the last <seconds> / 2 (the first half warms up), and its process's CPU.

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

public final class ConnectCost {
  private static final String POLL = "{\"type\":\"poll\",\"events\":[\"event1\"],\"duration\":180000}";
  private static final byte[] REQUEST = ("POST /request HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      + "Content-Length: " + POLL.length() + "\r\n\r\n" + POLL).getBytes(StandardCharsets.US_ASCII);
  private static final int BODY = 321;
  private static final byte[] ANSWER = answer();

  private static byte[] answer() {
    byte[] body = new byte[BODY];
    java.util.Arrays.fill(body, (byte) 'x');
    byte[] head = ("HTTP/1.1 200 OK\r\nServer: Apache-Coyote/1.1\r\nConnection: close\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + BODY + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    byte[] all = new byte[head.length + BODY];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(body, 0, all, head.length, BODY);
    return all;
  }

  public static void main(String[] args) throws Exception {
    if (args[0].equals("server")) server(Integer.parseInt(args[1]), Long.parseLong(args[2]));
    else client(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]), args[4]);
  }

  // ---- the server: requests held until the next tick, answered, then the client's hang-up awaited ----

  private static void server(int port, long tickMs) throws IOException {
    Selector selector = Selector.open();
    ServerSocketChannel ss = ServerSocketChannel.open(StandardProtocolFamily.INET);
    ss.bind(new InetSocketAddress("127.0.0.1", port), 8192);   // port 0: any free one
    ss.configureBlocking(false);
    ss.register(selector, SelectionKey.OP_ACCEPT);
    List<SocketChannel> held = new ArrayList<>();
    ByteBuffer in = ByteBuffer.allocate(4096);
    System.out.println("ready " + ss.socket().getLocalPort());
    long next = System.currentTimeMillis() + tickMs;
    while (true) {
      selector.select(Math.max(1, next - System.currentTimeMillis()));
      Iterator<SelectionKey> it = selector.selectedKeys().iterator();
      while (it.hasNext()) {
        SelectionKey k = it.next();
        it.remove();
        if (!k.isValid()) continue;
        if (k.isAcceptable()) {
          SocketChannel ch;
          while ((ch = ss.accept()) != null) {
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.register(selector, SelectionKey.OP_READ, new int[] {0});
          }
        } else if (k.isReadable()) {
          SocketChannel ch = (SocketChannel) k.channel();
          int[] got = (int[]) k.attachment();
          in.clear();
          int n;
          try {
            n = ch.read(in);
          } catch (IOException e) {
            n = -1;
          }
          if (n < 0) {   // the client hung up
            k.cancel();
            ch.close();
          } else if (got[0] < REQUEST.length && (got[0] += n) >= REQUEST.length) {
            held.add(ch);
          }
        }
      }
      if (System.currentTimeMillis() >= next) {
        for (SocketChannel ch : held) {
          try {
            ch.write(ByteBuffer.wrap(ANSWER));   // 400 bytes: the socket takes them whole
          } catch (IOException e) {
            ch.close();
          }
        }
        held.clear();
        next += tickMs;
      }
    }
  }

  // ---- the client: one selector thread, a new connection per answer ----

  private static final class Conn {
    SocketChannel ch;
    SelectionKey key;
    int read;
  }

  private static void client(int port, int connections, int seconds, String variant) throws IOException {
    boolean dial = variant.equals("dial");
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", port);
    Selector selector = Selector.open();
    ByteBuffer in = ByteBuffer.allocate(65536);
    Conn[] conns = new Conn[connections];
    for (int i = 0; i < connections; i++) {
      conns[i] = new Conn();
      open(conns[i], selector, address, dial);
    }
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    long start = System.nanoTime();
    long half = start + seconds * 500_000_000L;
    long end = start + seconds * 1_000_000_000L;
    long answers = 0;
    long counted = 0;
    long cpu0 = -1;
    while (System.nanoTime() < end) {
      if (cpu0 < 0 && System.nanoTime() >= half) {
        cpu0 = mx.getCurrentThreadCpuTime();
        counted = answers;
      }
      selector.select(100);
      Iterator<SelectionKey> it = selector.selectedKeys().iterator();
      while (it.hasNext()) {
        SelectionKey k = it.next();
        it.remove();
        Conn c = (Conn) k.attachment();
        if (!k.isValid()) continue;
        if (k.isConnectable()) {
          if (c.ch.finishConnect()) {
            k.interestOps(SelectionKey.OP_READ);
            c.ch.write(ByteBuffer.wrap(REQUEST));
          }
          continue;
        }
        if (k.isReadable()) {
          in.clear();
          int n = c.ch.read(in);
          if (n > 0) c.read += n;
          if (c.read >= ANSWER.length || n < 0) {
            if (c.read >= ANSWER.length) answers++;
            c.ch.close();   // Connection: close: the client hangs up and asks again on a new connection
            open(c, selector, address, dial);
          }
        }
      }
    }
    long cpu = mx.getCurrentThreadCpuTime() - cpu0;
    long n = answers - counted;
    long processCpu = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    System.out.printf("{\"variant\":\"%s\",\"connections\":%d,\"seconds\":%d,\"answers\":%d,\"answersMeasured\":%d,"
        + "\"cpuMicrosPerAnswer\":%.1f,\"processCpuMs\":%d}%n", variant, connections, seconds, answers, n, n > 0 ? cpu / 1000.0 / n : -1.0,
        processCpu / 1_000_000);
  }

  private static void open(Conn c, Selector selector, InetSocketAddress address, boolean dial) throws IOException {
    c.read = 0;
    if (dial) {
      c.ch = Dial.open(address);
      boolean now = Dial.connect(c.ch, address);
      c.key = c.ch.register(selector, now ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, c);
      if (now) c.ch.write(ByteBuffer.wrap(REQUEST));
    } else {
      c.ch = SocketChannel.open();
      c.ch.configureBlocking(false);
      c.ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      boolean now = c.ch.connect(address);
      c.key = c.ch.register(selector, now ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, c);
      if (now) c.ch.write(ByteBuffer.wrap(REQUEST));
    }
  }
}
