package pushbench.jmeter;

// One side of bench/ws-client-cost.sh (issue #38 item 3: "use the JDK's java.net.http WebSocket client
// rather than hand-written framing unless you measure that it costs more engine CPU per record than the
// server spends"; docs/engine.md "WebSocket"). This JVM holds N WebSocket streams on the server at
// ws://HOST:PORT/request, subscribed to one event, with one client:
//   jdk   java.net.http.WebSocket, one shared HttpClient; each text message is stamped (µs) and taken as
//         UTF-8 bytes, the least the engine must do with a record before logging it (no stream log here)
//   mux   the mux engine itself (MuxEngine, requestType ws: its own RFC 6455 framing on one selector), with
//         its stream log (B/R/E lines, gzip on the writer thread) as in a run
//   mux-nolog  the same without the stream log: like for like with jdk, which logs nothing
// then measures over a steady window: this process's CPU time (utime + stime of /proc/self/stat) and the
// server's (/proc/<server pid>/stat), and the records received; after the window, the live heap after
// full collections with the streams held less the same once the client and its streams are gone, per held
// connection. One JSON line on stdout.
//
//   java -cp <push-sampler classes>:<this> pushbench.jmeter.WsClientCost <jdk|mux|mux-nolog> <port> <connections>
//        <server pid> <warmup s> <window s> <log dir>

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

public final class WsClientCost {
  private static final String SUBSCRIPTION = "{\"type\":\"ws\",\"events\":[\"event1\"]}";
  private static final long TICKS_PER_SECOND = 100;   // USER_HZ on Linux

  private WsClientCost() { }

  public static void main(String[] a) throws Exception {
    String kind = a[0];
    int port = Integer.parseInt(a[1]);
    int n = Integer.parseInt(a[2]);
    long serverPid = Long.parseLong(a[3]);
    long warmupMs = Long.parseLong(a[4]) * 1000;
    long windowMs = Long.parseLong(a[5]) * 1000;
    Path logDir = Path.of(a[6]);
    Client c = kind.equals("jdk") ? new JdkClient(port, n)
        : new MuxClient(port, n, warmupMs + windowMs + 60_000, kind.equals("mux") ? logDir : null);
    long opened = c.open(60_000);
    c.run(warmupMs);
    long[] cpu0 = {cpuTicks("self"), cpuTicks(String.valueOf(serverPid))};
    long rec0 = c.records();
    long t0 = System.nanoTime();
    c.run(windowMs);
    long t1 = System.nanoTime();
    long rec1 = c.records();
    long[] cpu1 = {cpuTicks("self"), cpuTicks(String.valueOf(serverPid))};
    long heapHeld = liveHeap();
    c.close();
    c = null;   // the client and every stream's state are garbage from here on
    long heapGone = liveHeap();
    long records = rec1 - rec0;
    double seconds = (t1 - t0) / 1e9;
    double clientUs = (cpu1[0] - cpu0[0]) * 1e6 / TICKS_PER_SECOND;
    double serverUs = (cpu1[1] - cpu0[1]) * 1e6 / TICKS_PER_SECOND;
    System.out.printf(java.util.Locale.ROOT,
        "{\"client\":\"%s\",\"connections\":%d,\"open\":%d,\"windowS\":%.1f,\"records\":%d,\"clientCpuPct\":%.1f,"
            + "\"serverCpuPct\":%.1f,\"clientUsPerRecord\":%.2f,\"serverUsPerRecord\":%.2f,\"kbPerConnection\":%.2f}%n",
        kind, n, opened, seconds, records, clientUs / seconds / 1e4, serverUs / seconds / 1e4,
        records > 0 ? clientUs / records : -1, records > 0 ? serverUs / records : -1,
        (heapHeld - heapGone) / 1024.0 / n);
    System.exit(0);
  }

  /** The client under test. */
  interface Client {
    /** Opens the connections; returns how many are open (subscribed) within limitMs. */
    long open(long limitMs) throws Exception;

    /** Lets the streams run for ms. */
    void run(long ms) throws Exception;

    long records();

    void close() throws Exception;
  }

  // ---- java.net.http -----------------------------------------------------------------------------------

  static final class JdkClient implements Client {
    private final HttpClient http = HttpClient.newHttpClient();
    private final URI uri;
    private final int n;
    private final AtomicLong records = new AtomicLong();
    private final AtomicLong stamps = new AtomicLong();   // keeps the stamping from being optimized away
    private final List<WebSocket> sockets = new ArrayList<>();

    JdkClient(int port, int n) {
      this.uri = URI.create("ws://127.0.0.1:" + port + "/request");
      this.n = n;
    }

    @Override
    public long open(long limitMs) throws Exception {
      long deadline = System.currentTimeMillis() + limitMs;
      for (int i = 0; i < n && System.currentTimeMillis() < deadline; i++) {
        WebSocket ws = http.newWebSocketBuilder().buildAsync(uri, new Listener()).get(30, TimeUnit.SECONDS);
        ws.sendText(SUBSCRIPTION, true).get(30, TimeUnit.SECONDS);
        sockets.add(ws);
      }
      return sockets.size();
    }

    @Override
    public void run(long ms) throws InterruptedException { Thread.sleep(ms); }

    @Override
    public long records() { return records.get(); }

    @Override
    public void close() {
      for (WebSocket ws : sockets) ws.abort();
      sockets.clear();
    }

    // One stream: parts of a message joined, the message stamped and taken as bytes, counted.
    final class Listener implements WebSocket.Listener {
      private StringBuilder parts;

      @Override
      public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
        if (!last) {
          if (parts == null) parts = new StringBuilder();
          parts.append(data);
        } else {
          CharSequence whole = parts == null ? data : parts.append(data);
          parts = null;
          byte[] b = whole.toString().getBytes(StandardCharsets.UTF_8);
          stamps.addAndGet(PushClient.nowMicros() + b.length);
          records.incrementAndGet();
        }
        ws.request(1);
        return null;
      }
    }
  }

  // ---- the mux engine ----------------------------------------------------------------------------------

  static final class MuxClient implements Client {
    private final MuxEngine engine;
    private final int n;
    private long records;

    MuxClient(int port, int n, long durationMs, Path logDir) throws Exception {
      if (logDir != null) Files.createDirectories(logDir);
      MuxConfig c = new MuxConfig();
      c.port = port;
      c.type = MuxConfig.Type.WS;
      c.method = "GET";
      c.path = "/request";
      c.body = SUBSCRIPTION;
      c.connections = n;
      c.rampupMs = 0;
      c.durationMs = durationMs;
      c.responseTimeoutMs = 0;
      this.n = n;
      this.engine = new MuxEngine(c, 0, 1, System.nanoTime() / 1_000_000,
          logDir == null ? null : StreamLog.of(logDir, 0));
    }

    @Override
    public long open(long limitMs) {
      long deadline = System.currentTimeMillis() + limitMs;
      while (engine.openChannels() < n && System.currentTimeMillis() < deadline) records += engine.runFor(100).records;
      return engine.openChannels();
    }

    @Override
    public void run(long ms) {
      long until = System.nanoTime() / 1_000_000 + ms;
      for (long now; (now = System.nanoTime() / 1_000_000) < until; ) records += engine.runFor(Math.min(1000, until - now)).records;
    }

    @Override
    public long records() { return records; }

    @Override
    public void close() {
      engine.close();
      StreamLog.closeAll();
    }
  }

  // ---- measures ----------------------------------------------------------------------------------------

  // utime + stime of /proc/<pid>/stat, in clock ticks (fields 14 and 15, after the command's parentheses).
  static long cpuTicks(String pid) throws Exception {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  // The heap in use after full collections (three, so what is garbage is gone).
  static long liveHeap() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
