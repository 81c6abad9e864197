package pushbench.jmeter;

// JUnit of a target run's publisher (TargetPublisher; docs/targets.md "The run", "Inside") against a local
// HTTP server (NioServer) on 127.0.0.1: the schedule (rate per channel, the channels spread over the first
// 1/rate s, nothing due after duration - drain), {{seq}} and {{sentUs}} in the body and the E line's sent µs
// the same, one kept-alive connection per channel, B/E lines as the contract gives them, a server that
// closes its connections or refuses a publish, publishes sent late but never skipped behind a slow server,
// and the thread's end: by itself once the window is over, at once on close().

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TargetPublisherTest {
  private static final Pattern BODY = Pattern.compile("\\{\"ch\":\"run1-e1-(\\d+)\",\"seq\":(\\d+),\"sentUs\":(\\d+)\\}");

  @TempDir Path dir;
  private StreamLog log;
  private NioServer server;
  private TargetPublisher publisher;

  @BeforeEach
  void open() {
    log = StreamLog.of(dir, 0);
  }

  @AfterEach
  void stop() throws Exception {
    if (publisher != null) publisher.close();
    StreamLog.closeAll();
    if (server != null) server.close();
  }

  private static TargetSpec spec(int port, int channels, double rate, long drainMs) {
    String json = "{\"name\":\"t\",\"transport\":\"stream\",\"intervalMs\":0,"
        + "\"subscribe\":{\"url\":\"http://127.0.0.1:" + port + "/sub/{{channel}}\"},"
        + "\"publish\":{\"method\":\"PUT\",\"url\":\"http://127.0.0.1:" + port + "/pub/{{channel}}?s={{seq}}\","
        + "\"headers\":[[\"Content-Type\",\"application/json\"],[\"X-Seq\",\"{{seq}}\"]],"
        + "\"body\":\"{\\\"ch\\\":\\\"{{channel}}\\\",\\\"seq\\\":{{seq}},\\\"sentUs\\\":{{sentUs}}}\"},"
        + "\"channels\":" + channels + ",\"rate\":" + rate + ",\"drainMs\":" + drainMs + ",\"channelPrefix\":\"run1-e1-\"}";
    return TargetSpec.parse(json);
  }

  private TargetPublisher start(TargetSpec spec, long durationMs) throws IOException {
    return start(spec, MuxEngineTest.mono(), durationMs);
  }

  private TargetPublisher start(TargetSpec spec, long startMs, long durationMs) throws IOException {
    publisher = new TargetPublisher(spec, startMs, durationMs, 5000, 10_000, log);
    publisher.start();
    return publisher;
  }

  /** Per channel, the [seq, sentUs] of each body the server got, in arrival order. */
  private Map<Integer, List<long[]>> published() {
    Map<Integer, List<long[]>> out = new HashMap<>();
    for (String body : server.bodies) {
      Matcher m = BODY.matcher(body);
      assertTrue(m.matches(), body);
      out.computeIfAbsent(Integer.parseInt(m.group(1)), k -> new ArrayList<>())
          .add(new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3))});
    }
    return out;
  }

  @Test
  void eachChannelPublishesAtItsRateUntilTheDrainAndEachPublishIsOneSample() throws Exception {
    server = new NioServer((body, conn, n) -> List.of(NioServer.after(0, NioServer.lengthAnswer(201, "Created", "{}"))));
    // The schedule's start on the {{sentUs}} clock (wall-clock µs): the start in ms on System.nanoTime()'s
    // clock, read beside the wall clock.
    long nowNs = System.nanoTime();
    long nowUs = PushClient.nowMicros();
    long startMs = nowNs / 1_000_000;
    long startUs = nowUs - (nowNs - startMs * 1_000_000) / 1000;
    start(spec(server.port(), 2, 20, 200), startMs, 1000);
    assertTrue(publisher.await(3000), "ended by itself after the window");
    Map<Integer, List<long[]>> got = published();
    for (int c = 0; c < 2; c++) {
      List<long[]> p = got.get(c);
      assertEquals(16, p.size(), "channel " + c + ": due every 50 ms before 1000 - 200 ms");
      for (int k = 0; k < p.size(); k++) {
        assertEquals(k + 1, p.get(k)[0], "seq from 1, in order");
        // Due at start + (k + c / 2) x 50 ms: channel 1 half an interval after channel 0. Never early (1 ms for
        // the two clocks read one after the other); late by at most 150 ms on a busy machine.
        long late = p.get(k)[1] - (startUs + k * 50_000L + c * 25_000L);
        assertTrue(late >= -1_000 && late <= 150_000, "channel " + c + " publish " + (k + 1) + " late by " + late + " µs");
      }
    }
    assertEquals(2, server.accepted.get(), "one kept-alive connection per channel");

    List<String[]> lines = Logs.closedLines(dir);
    List<String[]> begins = Logs.kind(lines, "B");
    List<String[]> ends = Logs.kind(lines, "E");
    assertEquals(32, begins.size());
    assertEquals(32, ends.size());
    Map<String, String> threadOf = new HashMap<>();
    for (String[] b : begins) {
      assertTrue(b[3].matches("Publish [01]"), b[3]);
      assertTrue(b[4].matches("publish \\d+"), b[4]);
      threadOf.put(b[2], b[3] + "/" + b[4]);
    }
    Map<String, Long> sentOf = new HashMap<>();
    got.forEach((c, p) -> p.forEach(s -> sentOf.put("Publish " + c + "/publish " + s[0], s[1])));
    for (String[] e : ends) {
      assertEquals(12, e.length);
      assertEquals("201", e[3]);
      assertEquals("1", e[4], "a 2xx is ok");
      assertEquals("0", e[5], "no records");
      assertEquals("2", e[6], "body bytes");
      assertEquals("0", e[7]);
      assertEquals(String.valueOf(sentOf.get(threadOf.get(e[2]))), e[8], "sent µs = the {{sentUs}} it sent");
      assertEquals("Created", e[9]);
      assertEquals("", e[10]);
      long headers = Long.parseLong(e[11]);
      assertTrue(headers >= Long.parseLong(e[8]), "its answer's head after its send");
    }
    assertEquals(32, publisher.ended.get());
    assertEquals(0, publisher.failed.get());
  }

  @Test
  void aServerThatClosesOrRefusesGetsEveryPublishOnANewConnectionWhenNeeded() throws Exception {
    server = new NioServer((body, conn, n) -> n % 2 == 0
        ? List.of(NioServer.after(0, NioServer.lengthAnswer(200, "OK", "{}")), NioServer.closeAfter(0))
        : List.of(NioServer.after(0, NioServer.lengthAnswer(500, "Internal Server Error", "{\"e\":1}"))));
    start(spec(server.port(), 1, 20, 0), 500);
    assertTrue(publisher.await(3000));
    List<long[]> p = published().get(0);
    assertEquals(10, p.size(), "every publish due in 500 ms");
    for (int k = 0; k < p.size(); k++) assertEquals(k + 1, p.get(k)[0]);
    List<String[]> ends = Logs.kind(Logs.closedLines(dir), "E");
    assertEquals(10, ends.size());
    assertEquals(5, ends.stream().filter(e -> e[4].equals("0") && e[10].equals("HTTP status 500 Internal Server Error")).count());
    assertEquals(5, ends.stream().filter(e -> e[4].equals("1") && e[3].equals("200")).count());
    assertTrue(server.accepted.get() >= 5, "a new connection after each close: " + server.accepted.get());
  }

  @Test
  void behindASlowServerPublishesGoOutLateButNoneIsSkipped() throws Exception {
    server = new NioServer((body, conn, n) -> List.of(NioServer.after(120, NioServer.lengthAnswer(200, "OK", "{}"))));
    start(spec(server.port(), 1, 20, 0), 700);
    assertTrue(publisher.await(3000));
    List<long[]> p = published().get(0);
    assertTrue(p.size() >= 4 && p.size() <= 6, "one at a time, 120 ms each, within 700 ms: " + p.size());
    for (int k = 0; k < p.size(); k++) {
      assertEquals(k + 1, p.get(k)[0], "no seq skipped");
      if (k > 0) assertTrue(p.get(k)[1] - p.get(k - 1)[1] >= 115_000, "the next as soon as the answer is in");
    }
    List<String[]> ends = Logs.kind(Logs.closedLines(dir), "E");
    assertEquals(p.size(), ends.size());
    String[] last = ends.get(ends.size() - 1);
    assertEquals("0", last[4], "the one in flight at the duration's end failed");
    assertEquals("Non HTTP response message: " + TargetPublisher.END_OF_TEST, last[9]);
  }

  @Test
  void closeEndsTheThreadAtOnceAndWhatIsInFlightFails() throws Exception {
    server = new NioServer((body, conn, n) -> List.of(NioServer.after(5000, NioServer.lengthAnswer(200, "OK", "{}"))));
    start(spec(server.port(), 3, 1, 2000), 60_000);
    long deadline = System.currentTimeMillis() + 3000;
    while (server.requests.get() < 3 && System.currentTimeMillis() < deadline) Thread.sleep(10);
    long t = System.nanoTime();
    publisher.close();
    assertTrue(publisher.done(), "no publisher thread outlives close()");
    assertTrue(System.nanoTime() - t < 1_000_000_000L, "at once");
    List<String[]> ends = Logs.kind(Logs.closedLines(dir), "E");
    assertEquals(3, ends.size());
    for (String[] e : ends) assertEquals("Non HTTP response message: engine stopped", e[9]);
  }
}
