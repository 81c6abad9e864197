package pushbench.jmeter;

// pushbench's side of bench/peers.sh (issue #38 item 6, "against the peers"): the mux engine holding N SSE
// or WebSocket streams on the server at 127.0.0.1:PORT, subscribed to event1, driven as bench/ws-client-cost.sh
// drives it (MuxEngine on one selector, the stream log on: every record stamped in µs and logged, gzip on its
// writer thread, as in a run). The bench measures this process from outside (/proc/<pid>/stat, jcmd, jstat),
// the same way it measures Gatling; this JVM only runs the load and, at the end, reads its own stream log for
// the trip times.
//
//   java -cp <push-sampler classes>:<this> pushbench.jmeter.PeerEngine <sse|ws> <port> <connections>
//        <baseline s> <stop file> <log dir>
//
// Prints "ready" once loaded, waits <baseline s> (the bench takes the baseline heap then), opens every
// connection at once (ramp-up 0, as fast as the engine opens them), runs until <stop file> exists, closes
// the engine and its log, then prints one JSON line: records received (event records), the trip time p50 /
// p99 of every event record of the run (arrival µs − the emit cycle's created ms − 0.5, on one clock:
// docs/trip-time.md with offset 0), failed answers (E lines not ok, less those the stop ended) and
// reconnections (answers beyond N).
//
//   java -cp <push-sampler classes>:<this> pushbench.jmeter.PeerEngine report <log dir> <connections>
//
// prints the same JSON line from the stream logs under <log dir> (any depth) that another engine wrote: a
// JMeter engine's (bench/peers.sh's jmeter generator). A log cut short by the engine's stop (a gzip
// without its end) counts up to where it ends.

import java.io.BufferedReader;
import java.io.EOFException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

public final class PeerEngine {
  private static final String SUBSCRIPTION = "{\"type\":\"ws\",\"events\":[\"event1\"]}";

  private PeerEngine() { }

  public static void main(String[] a) throws Exception {
    if (a[0].equals("report")) {
      report(Path.of(a[1]), Integer.parseInt(a[2]));
      return;
    }
    String transport = a[0];
    int port = Integer.parseInt(a[1]);
    int n = Integer.parseInt(a[2]);
    long baselineMs = Long.parseLong(a[3]) * 1000;
    Path stop = Path.of(a[4]);
    Path logDir = Path.of(a[5]);
    Files.createDirectories(logDir);
    MuxConfig c = new MuxConfig();
    c.port = port;
    c.method = "GET";
    if (transport.equals("sse")) {
      c.type = MuxConfig.Type.SSE;
      c.path = "/request?type=sse&events=event1";
    } else {
      c.type = MuxConfig.Type.WS;
      c.path = "/request";
      c.body = SUBSCRIPTION;
    }
    c.connections = n;
    c.rampupMs = 0;
    c.durationMs = 3_600_000;
    c.responseTimeoutMs = 0;
    System.out.println("ready");
    System.out.flush();
    Thread.sleep(baselineMs);
    MuxEngine engine = new MuxEngine(c, 0, 1, System.nanoTime() / 1_000_000, StreamLog.of(logDir, 0));
    while (!Files.exists(stop)) engine.runFor(200);
    engine.close();
    StreamLog.closeAll();
    report(logDir, n);
    System.exit(0);
  }

  // The run's stream log: event records and their trip times, failed answers, answers begun.
  static void report(Path logDir, int n) throws Exception {
    double[] trips = new double[1 << 16];
    int count = 0;
    long failed = 0;
    long begun = 0;
    List<Path> files;
    try (Stream<Path> all = Files.walk(logDir)) {
      files = all.filter(f -> f.getFileName().toString().matches("push-.*\\.tsv\\.gz")).sorted().toList();
    }
    for (Path f : files) {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(
          new GZIPInputStream(Files.newInputStream(f), 1 << 16), StandardCharsets.UTF_8), 1 << 16)) {
        for (String line; (line = r.readLine()) != null; ) {
          char kind = line.isEmpty() ? ' ' : line.charAt(0);
          if (kind == 'B') begun++;
          else if (kind == 'E') {
            String[] f4 = line.split("\t", 6);
            // the streams the bench's stop ends ("engine stopped") are no failure
            if (f4.length > 4 && f4[4].equals("0") && !line.contains("engine stopped")) failed++;
          } else if (kind == 'R') {
            double trip = tripMs(line);
            if (Double.isNaN(trip)) continue;
            if (count == trips.length) trips = Arrays.copyOf(trips, count * 2);
            trips[count++] = trip;
          }
        }
      } catch (EOFException | ZipException cut) {
        // a log its engine did not close: the lines before the cut count
      }
    }
    double[] t = Arrays.copyOf(trips, count);
    Arrays.sort(t);
    System.out.printf(Locale.ROOT, "{\"received\":%d,\"tripP50Ms\":%s,\"tripP99Ms\":%s,\"failed\":%d,\"reconnections\":%d}%n",
        count, json(percentile(t, 50)), json(percentile(t, 99)), failed, Math.max(0, begun - n));
  }

  // R \t µs \t id \t record: an event record's trip time in ms, NaN for any other record.
  static double tripMs(String line) {
    int t1 = line.indexOf('\t');
    int t2 = line.indexOf('\t', t1 + 1);
    int t3 = line.indexOf('\t', t2 + 1);
    if (t1 < 0 || t2 < 0 || t3 < 0 || !line.startsWith("{\"response\":{\"event\":", t3 + 1)) return Double.NaN;
    int at = line.indexOf("\"created\":", t3);
    if (at < 0) return Double.NaN;
    int from = at + "\"created\":".length();
    int to = from;
    while (to < line.length() && Character.isDigit(line.charAt(to))) to++;
    long arrivalMicros = Long.parseLong(line, t1 + 1, t2, 10);
    long createdMs = Long.parseLong(line, from, to, 10);
    return arrivalMicros / 1000.0 - (createdMs + 0.5);
  }

  static String json(double v) {
    return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.1f", v);
  }

  // The p-th percentile (nearest rank) of sorted values; NaN when there are none.
  static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) return Double.NaN;
    int rank = (int) Math.ceil(p / 100 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }
}
