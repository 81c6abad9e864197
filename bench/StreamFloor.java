// The floor of reading comet streams (issue #48 item 2; bench/engine-floor.sh, docs/engine.md "The floor:
// what reading the streams costs"): a bare Java NIO reader, one selector thread, non-blocking
// SocketChannels and one direct read buffer, that holds N comet streams on a server and counts their
// records (a line ending "}\n"; Node.js's chunked framing never holds that pair) and does nothing else: no
// parsing, no per-record object. With mode `log` it also writes every byte it reads (the records as they
// arrive) to a file through one BufferedOutputStream: the floor of a stream log.
//
//   java StreamFloor <count|log> <host> <port> <streams> <event> <server pid> <warmup s> <window s> [<log file>]
//
// It opens the streams (at most 256 connects outstanding), waits until every one answered 200 (or failed),
// then <warmup s>, then measures over <window s>: its own CPU and the server's (utime + stime of
// /proc/<pid>/stat, in clock ticks of 1/100 s) and the host's (/proc/stat's first line: every field but
// idle and iowait), and the records it counted. It prints one JSON line on stdout:
//   {"mode","streams","open","failed","windowS","records","recordsPerSecond","floorCpuPercent",
//    "serverCpuPercent","otherCpuPercent","floorUsPerRecord","serverUsPerRecord","floorOverServer"}
// CPU % is of one core; otherCpuPercent is the host's busy time taken by neither process, in % of the host
// (all its CPUs). Exit 0 when every stream opened, 1 otherwise (the line is printed either way).
// With -Dfloor.coalesceMicros=<µs> (> 0) the reader coalesces its reads as the engine does (MuxEngine
// COALESCE_NANOS): a select starts at least that long after the previous one started, the thread parked
// until then; the line then carries "coalesceMicros".
import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Iterator;
import java.util.concurrent.locks.LockSupport;

public final class StreamFloor {
  private static final int MAX_PENDING_CONNECTS = 256;
  private static final int TICKS_PER_SECOND = 100;
  private static final long COALESCE_MICROS = Math.max(0, Long.getLong("floor.coalesceMicros", 0));

  // Written by the selector thread, read by the main thread at the window's ends.
  private static volatile long records;
  private static volatile int open;
  private static volatile int failed;

  public static void main(String[] args) throws Exception {
    if (args.length < 8 || !(args[0].equals("count") || args[0].equals("log")) || (args[0].equals("log") && args.length < 9)) {
      System.err.println("usage: java StreamFloor <count|log> <host> <port> <streams> <event> <server pid> <warmup s> <window s> [<log file>]");
      System.exit(2);
    }
    String mode = args[0];
    InetSocketAddress address = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
    int streams = Integer.parseInt(args[3]);
    String event = args[4];
    long serverPid = Long.parseLong(args[5]);
    int warmup = Integer.parseInt(args[6]);
    int window = Integer.parseInt(args[7]);
    OutputStream log = mode.equals("log") ? new BufferedOutputStream(new FileOutputStream(args[8]), 1 << 16) : null;

    String body = "{\"type\":\"comet\",\"events\":[\"" + event + "\"]}";
    byte[] request = ("POST /request HTTP/1.1\r\nHost: " + args[1] + ":" + args[2]
        + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
        .getBytes(StandardCharsets.US_ASCII);

    Thread reader = new Thread(() -> {
      try {
        read(address, streams, request, log);
      } catch (IOException e) {
        e.printStackTrace();
        System.exit(1);
      }
    }, "floor-selector");
    reader.setDaemon(true);
    reader.start();

    while (open + failed < streams) Thread.sleep(100);
    Thread.sleep(warmup * 1000L);
    Ticks from = Ticks.now(serverPid);
    long records0 = records;
    long t0 = System.nanoTime();
    Thread.sleep(window * 1000L);
    Ticks to = Ticks.now(serverPid);
    long records1 = records;
    double seconds = (System.nanoTime() - t0) / 1e9;
    System.out.println("{\"mode\":\"" + mode + "\",\"streams\":" + streams + ",\"open\":" + open + ",\"failed\":" + failed
        + (COALESCE_MICROS > 0 ? ",\"coalesceMicros\":" + COALESCE_MICROS : "")
        + "," + windowFields(from, to, seconds, records1 - records0) + "}");
    System.out.flush();
    System.exit(failed == 0 ? 0 : 1);
  }

  // The selector thread: opens the streams, then reads them for ever. A stream is open once its answer
  // starts "HTTP/1.1 200"; anything else, or a connection that fails or ends, counts as failed.
  private static void read(InetSocketAddress address, int streams, byte[] request, OutputStream log) throws IOException {
    Selector selector = Selector.open();
    ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 16);
    byte[] copy = log == null ? null : new byte[buffer.capacity()];
    byte[] last = new byte[streams];           // per stream: the last byte read, for a "}\n" across reads
    boolean[] streaming = new boolean[streams];
    byte[] status = "HTTP/1.1 200".getBytes(StandardCharsets.US_ASCII);
    int started = 0, pending = 0;
    long counted = 0;
    long lastSelect = 0;
    while (true) {
      while (started < streams && pending < MAX_PENDING_CONNECTS) {
        SocketChannel channel = SocketChannel.open();
        channel.configureBlocking(false);
        int id = started++;
        if (channel.connect(address)) {
          channel.write(ByteBuffer.wrap(request));
          channel.register(selector, SelectionKey.OP_READ, id);
        } else {
          channel.register(selector, SelectionKey.OP_CONNECT, id);
          pending++;
        }
      }
      if (COALESCE_MICROS > 0) {
        long pause = lastSelect + COALESCE_MICROS * 1000 - System.nanoTime();
        if (pause > 0) LockSupport.parkNanos(pause);
        lastSelect = System.nanoTime();
      }
      selector.select();
      Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
      while (keys.hasNext()) {
        SelectionKey key = keys.next();
        keys.remove();
        SocketChannel channel = (SocketChannel) key.channel();
        int id = (Integer) key.attachment();
        try {
          if (key.isConnectable()) {
            pending--;
            channel.finishConnect();
            channel.write(ByteBuffer.wrap(request));  // a few hundred bytes: a fresh socket's buffer takes them
            key.interestOps(SelectionKey.OP_READ);
            continue;
          }
          buffer.clear();
          int n = channel.read(buffer);
          if (n < 0) throw new IOException("closed by the server");
          if (!streaming[id]) {
            if (n < status.length) throw new IOException("short answer");
            for (int i = 0; i < status.length; i++) if (buffer.get(i) != status[i]) throw new IOException("not 200");
            streaming[id] = true;
            open++;
          }
          byte previous = last[id];
          for (int i = 0; i < n; i++) {
            byte b = buffer.get(i);
            if (b == '\n' && previous == '}') counted++;
            previous = b;
          }
          last[id] = previous;
          if (log != null) {
            buffer.get(0, copy, 0, n);
            log.write(copy, 0, n);
          }
        } catch (IOException e) {
          key.cancel();
          channel.close();
          if (streaming[id]) open--;
          failed++;
        }
      }
      records = counted;
    }
  }

  /** CPU time so far, in clock ticks: this JVM's, the server process's and the host's busy time. */
  record Ticks(long floor, long server, long host) {
    static Ticks now(long serverPid) throws IOException {
      return new Ticks(cpuTicks(ProcessHandle.current().pid()), cpuTicks(serverPid), hostBusyTicks());
    }
  }

  /**
   * The window's figures every floor prints (engine-floor.sh's opening comment), as JSON fields: windowS,
   * records (counted in it), recordsPerSecond, floorCpuPercent, serverCpuPercent (% of a core),
   * otherCpuPercent (the host's busy time neither took, % of the host), floorUsPerRecord, serverUsPerRecord
   * (CPU µs / records) and floorOverServer.
   */
  static String windowFields(Ticks from, Ticks to, double seconds, long counted) throws IOException {
    long floor = to.floor() - from.floor();
    long server = to.server() - from.server();
    double otherTicks = (to.host() - from.host()) - floor - server;
    double otherCpu = ticksToPercent(Math.max(0, otherTicks), seconds) / hostCpus();
    double floorUs = counted == 0 ? Double.NaN : floor * 1e6 / TICKS_PER_SECOND / counted;
    double serverUs = counted == 0 ? Double.NaN : server * 1e6 / TICKS_PER_SECOND / counted;
    return "\"windowS\":" + json(seconds, 2) + ",\"records\":" + counted + ",\"recordsPerSecond\":" + json(counted / seconds, 1)
        + ",\"floorCpuPercent\":" + json(ticksToPercent(floor, seconds), 2) + ",\"serverCpuPercent\":" + json(ticksToPercent(server, seconds), 2)
        + ",\"otherCpuPercent\":" + json(otherCpu, 1) + ",\"floorUsPerRecord\":" + json(floorUs, 2)
        + ",\"serverUsPerRecord\":" + json(serverUs, 2) + ",\"floorOverServer\":" + json(floorUs / serverUs, 3);
  }

  private static double ticksToPercent(double ticks, double seconds) {
    return ticks * 100.0 / TICKS_PER_SECOND / seconds;
  }

  /**
   * A figure as a JSON number rounded to places decimals; null when it has no value (no record counted, a
   * server that took no CPU time in the window: a ratio over 0).
   */
  static String json(double value, int places) {
    if (!Double.isFinite(value)) return "null";
    double scale = Math.pow(10, places);
    return String.valueOf(Math.round(value * scale) / scale);
  }

  // utime + stime of a process, in clock ticks (fields 14 and 15; the name in field 2 may hold spaces).
  static long cpuTicks(long pid) throws IOException {
    String stat = new String(Files.readAllBytes(Paths.get("/proc/" + pid + "/stat")), StandardCharsets.US_ASCII);
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" +");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  // The host's CPUs: /proc/stat's "cpu<N>" lines (not availableProcessors(), which a taskset narrows).
  static int hostCpus() throws IOException {
    return (int) Files.readAllLines(Paths.get("/proc/stat")).stream().filter((l) -> l.matches("cpu[0-9]+ .*")).count();
  }

  // The host's busy time, in clock ticks: /proc/stat's "cpu" line, every field but idle and iowait
  // (guest time is already counted in user).
  static long hostBusyTicks() throws IOException {
    String line = Files.readAllLines(Paths.get("/proc/stat")).get(0);
    String[] f = line.trim().split(" +");
    long busy = 0;
    for (int i = 1; i <= 8 && i < f.length; i++) if (i != 4 && i != 5) busy += Long.parseLong(f[i]);
    return busy;
  }
}
