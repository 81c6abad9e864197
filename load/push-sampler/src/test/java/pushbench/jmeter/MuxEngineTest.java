package pushbench.jmeter;

// JUnit of the multiplexing engine on real sockets (127.0.0.1): thousands of polls on two engine threads
// all counted and logged; byte-level framing (records split across reads, several in one read, a stream
// broken mid-record, reset, stalled); 4xx answers and the plan's two assertions; pull cursors; ramp-up
// pacing; the end after the duration and the hard deadline; refused and reset connections with backoff;
// reconnects after an announced close leave no socket of the engine's behind when it closes them
// (Dial.reconnect's reset close), reconnects after an unannounced one close with a FIN.
// Every test is bounded in time, its load on the loopback only.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static pushbench.jmeter.ChunkedServer.CLOSE;
import static pushbench.jmeter.ChunkedServer.END;
import static pushbench.jmeter.ChunkedServer.HOLD;
import static pushbench.jmeter.ChunkedServer.chunk;
import static pushbench.jmeter.ChunkedServer.chunkedHead;
import static pushbench.jmeter.ChunkedServer.lengthHead;
import static pushbench.jmeter.ChunkedServer.pause;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MuxEngineTest {
  private static final String POLL_BODY = "{\"type\":\"poll\",\"events\":[\"event1\"],\"duration\":3000}";
  private static final String NDJSON = "application/x-ndjson";

  @TempDir Path dir;
  private StreamLog log;
  private final List<AutoCloseable> servers = new ArrayList<>();

  @BeforeEach
  void openLog() {
    log = StreamLog.of(dir, 0);
  }

  @AfterEach
  void stop() throws Exception {
    StreamLog.closeAll();
    for (AutoCloseable s : servers) s.close();
  }

  private <T extends AutoCloseable> T server(T s) {
    servers.add(s);
    return s;
  }

  static String rec(int cycle) {
    return "{\"response\":{\"event\":{\"name\":\"event1\",\"cycle\":" + cycle + "}}}";
  }

  private static MuxConfig config(int port, MuxConfig.Type type, int connections, long durationMs) {
    MuxConfig c = new MuxConfig();
    c.port = port;
    c.type = type;
    c.connections = connections;
    c.durationMs = durationMs;
    c.body = type == MuxConfig.Type.POLL ? POLL_BODY : "{\"type\":\"comet\",\"events\":[\"event1\"]}";
    c.responseTimeoutMs = 10_000;
    c.connectTimeoutMs = 5_000;
    return c;
  }

  static long mono() {
    return System.nanoTime() / 1_000_000;
  }

  /** Runs an engine to its end in 200 ms intervals, closes it, returns the intervals. */
  static List<MuxEngine.Interval> run(MuxEngine e) {
    List<MuxEngine.Interval> out = new ArrayList<>();
    while (!e.finished()) out.add(e.runFor(200));
    e.close();
    return out;
  }

  static long sum(List<MuxEngine.Interval> ivs, ToLongFunction<MuxEngine.Interval> f) {
    return ivs.stream().mapToLong(f).sum();
  }

  private List<MuxEngine.Interval> runOne(MuxConfig c) throws IOException {
    return run(new MuxEngine(c, 0, 1, mono(), log));
  }

  // ---- scale ---------------------------------------------------------------------------------------------

  @Test
  void threeThousandPollsOnTwoThreadsAreAllCountedAndLogged() throws Exception {
    String answer = NioServer.lengthAnswer(200, "OK", rec(1));
    NioServer server = server(new NioServer((body, conn, n) -> List.of(NioServer.after(100, answer))));
    MuxConfig c = config(server.port(), MuxConfig.Type.POLL, 3000, 1500);
    c.rampupMs = 500;
    long start = mono();
    MuxEngine e0 = new MuxEngine(c, 0, 2, start, log);
    MuxEngine e1 = new MuxEngine(c, 1, 2, start, log);
    CompletableFuture<List<MuxEngine.Interval>> other = CompletableFuture.supplyAsync(() -> run(e1));
    List<MuxEngine.Interval> ivs = new ArrayList<>(run(e0));
    ivs.addAll(other.get(30, TimeUnit.SECONDS));

    long answers = sum(ivs, iv -> iv.answers);
    assertEquals(0, sum(ivs, iv -> iv.errors), "no errors");
    assertEquals(3000, sum(ivs, iv -> iv.opened));
    assertEquals(3000, server.accepted.get(), "one kept-alive connection each");
    assertTrue(answers >= 3000, "every connection polled (more often on an idle machine): " + answers);
    assertEquals(server.requests.get(), answers, "every request answered and counted");
    assertEquals(answers, sum(ivs, iv -> iv.records));

    List<String[]> lines = Logs.closedLines(dir);
    List<String[]> ends = Logs.kind(lines, "E");
    assertEquals(answers, ends.size(), "one E line per answer");
    assertEquals(answers, Logs.kind(lines, "B").size());
    assertEquals(answers, Logs.kind(lines, "R").size());
    List<String[]> connects = Logs.kind(lines, "C");
    assertEquals(3000, connects.size(), "one C line per connection (its first connect), none per kept-alive answer");
    Map<String, List<String[]>> samples = Logs.bySample(lines);
    assertEquals(answers, samples.size(), "sample ids distinct across both threads");
    Set<String> threads = new HashSet<>();
    Set<String> connected = new HashSet<>();
    for (List<String[]> s : samples.values()) {
      int k = s.get(1)[0].equals("C") ? 1 : 0;   // B, then the C line on a connection's first sample
      if (k == 1) {
        assertTrue(connected.add(s.get(0)[3]), "one C line per connection: " + s.get(0)[3]);
        assertTrue(Long.parseLong(s.get(1)[1]) >= Long.parseLong(s.get(0)[1]), "connected after its B line");
        assertTrue(Long.parseLong(s.get(1)[3]) >= 0, "connect µs");
      }
      assertEquals(3 + k, s.size());
      assertEquals("B", s.get(0)[0]);
      assertEquals("R", s.get(1 + k)[0]);
      assertEquals("E", s.get(2 + k)[0]);
      threads.add(s.get(0)[3]);
      assertEquals("request", s.get(0)[4]);
    }
    assertEquals(3000, threads.size());
    assertTrue(threads.contains("Request 1-1") && threads.contains("Request 1-3000"));
    for (String[] e : ends) {
      assertEquals(12, e.length, "E with the failure and headers µs fields");
      assertEquals("200", e[3]);
      assertEquals("1", e[4]);
      assertEquals("", e[10]);
      long headers = Long.parseLong(e[11]);
      assertTrue(headers > 0 && headers <= Long.parseLong(e[1]), "headers µs read before the answer's end: " + headers);
    }
  }

  // ---- framing -------------------------------------------------------------------------------------------

  @Test
  void recordsSplitAcrossReadsArriveWholeWhenTheirLastPieceDoes() throws Exception {
    ChunkedServer server = server(new ChunkedServer());
    String r1 = rec(1);
    String r2 = rec(2);
    List<ChunkedServer.Step> steps = new ArrayList<>();
    steps.add(chunkedHead(200, "OK", NDJSON));
    for (char ch : (r1 + "\n").toCharArray()) {   // one byte per chunk and per write
      steps.add(chunk(String.valueOf(ch)));
      steps.add(pause(1));
    }
    steps.add(chunk(r2.substring(0, 5)));
    steps.add(pause(80));
    steps.add(chunk(r2.substring(5, 20)));
    steps.add(pause(80));
    steps.add(chunk(r2.substring(20) + "\n"));
    steps.add(END);
    server.answer(steps.toArray(new ChunkedServer.Step[0]));
    List<MuxEngine.Interval> ivs = runOne(config(server.port(), MuxConfig.Type.COMET, 1, 100));
    assertEquals(1, sum(ivs, iv -> iv.answers));
    assertEquals(0, sum(ivs, iv -> iv.errors));
    List<String[]> lines = Logs.closedLines(dir);
    List<String[]> records = Logs.kind(lines, "R");
    assertEquals(List.of(r1, r2), records.stream().map(l -> l[3]).collect(Collectors.toList()));
    long gap = Long.parseLong(records.get(1)[1]) - Long.parseLong(records.get(0)[1]);
    assertTrue(gap >= 150_000, "stamped at its last piece: " + gap + " µs after the first record");
    String[] e = Logs.kind(lines, "E").get(0);
    assertEquals("2", e[5]);
    assertEquals(String.valueOf(r1.length() + r2.length() + 2), e[6], "body bytes");
  }

  @Test
  void severalRecordsInOneReadShareTheirStamp() throws Exception {
    ChunkedServer server = server(new ChunkedServer());
    server.answer(chunkedHead(200, "OK", NDJSON), chunk(rec(1) + "\n" + rec(2) + "\r\n\n" + rec(3) + "\n"), pause(150),
        chunk(rec(4) + "\n"), END);
    runOne(config(server.port(), MuxConfig.Type.COMET, 1, 100));
    List<String[]> records = Logs.kind(Logs.closedLines(dir), "R");
    assertEquals(List.of(rec(1), rec(2), rec(3), rec(4)), records.stream().map(l -> l[3]).collect(Collectors.toList()),
        "\\r stripped, the empty line skipped");
    assertEquals(records.get(0)[1], records.get(2)[1]);
    assertTrue(Long.parseLong(records.get(3)[1]) - Long.parseLong(records.get(2)[1]) >= 140_000);
  }

  @Test
  void streamBrokenMidRecordCountsTheCutBytesAndFails() throws Exception {
    ChunkedServer server = server(new ChunkedServer());
    server.answer(chunkedHead(200, "OK", NDJSON), chunk(rec(1) + "\n" + rec(2).substring(0, 10)), pause(150), CLOSE);
    List<MuxEngine.Interval> ivs = runOne(config(server.port(), MuxConfig.Type.COMET, 1, 100));
    assertEquals(1, sum(ivs, iv -> iv.errors));
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(4, lines.size(), "B, C, R and E: the cut record is counted, not logged");
    assertEquals("C", lines.get(1)[0]);
    String[] e = lines.get(3);
    assertEquals("Non HTTP response code: java.io.EOFException", e[3]);
    assertEquals("0", e[4]);
    assertEquals("1", e[5]);
    assertEquals("10", e[7], "cut bytes");
    assertEquals("Non HTTP response message: Premature end of chunk coded message body", e[9]);
    assertTrue(e[10].startsWith("java.io.EOFException"), e[10]);
  }

  @Test
  void streamResetMidwayIsThatConnectionsError() throws Exception {
    ChunkedServer server = server(new ChunkedServer());
    ChunkedServer.Step reset = (out, s) -> {
      s.setSoLinger(true, 0);
      s.close();
    };
    server.answer(chunkedHead(200, "OK", NDJSON), chunk(rec(1) + "\n"), pause(150), reset);
    List<MuxEngine.Interval> ivs = runOne(config(server.port(), MuxConfig.Type.COMET, 1, 100));
    assertEquals(1, sum(ivs, iv -> iv.errors));
    assertEquals(1, sum(ivs, iv -> iv.records));
    String[] e = Logs.kind(Logs.closedLines(dir), "E").get(0);
    assertEquals("Non HTTP response code: java.net.SocketException", e[3]);
    assertTrue(e[9].contains("reset"), e[9]);
  }

  @Test
  void stalledStreamEndsAtItsResponseTimeout() throws Exception {
    ChunkedServer server = server(new ChunkedServer());
    server.answer(chunkedHead(200, "OK", NDJSON), chunk(rec(1) + "\n"), HOLD);
    MuxConfig c = config(server.port(), MuxConfig.Type.COMET, 1, 100);
    c.responseTimeoutMs = 400;
    List<MuxEngine.Interval> ivs = runOne(c);
    assertEquals(1, sum(ivs, iv -> iv.errors));
    List<String[]> lines = Logs.closedLines(dir);
    String[] r = lines.get(2);   // after B and C
    String[] e = lines.get(3);
    assertEquals("Non HTTP response code: java.net.SocketTimeoutException", e[3]);
    assertEquals("Non HTTP response message: Read timed out", e[9]);
    long silence = (Long.parseLong(e[1]) - Long.parseLong(r[1])) / 1000;
    assertTrue(silence >= 380 && silence < 1500, "ended after 400 ms of silence: " + silence + " ms");
  }

  @Test
  void aStreamThatKeepsTalkingOutlivesItsTimeoutAndItsSilenceEndsIt() throws Exception {
    ChunkedServer server = server(new ChunkedServer());
    server.answer(chunkedHead(200, "OK", NDJSON), chunk(rec(1) + "\n"), pause(250), chunk(rec(2) + "\n"), pause(250),
        chunk(rec(3) + "\n"), pause(250), chunk(rec(4) + "\n"), HOLD);
    MuxConfig c = config(server.port(), MuxConfig.Type.COMET, 1, 100);
    c.responseTimeoutMs = 400;   // shorter than the stream's life (750 ms), longer than any gap in it (250 ms)
    List<MuxEngine.Interval> ivs = runOne(c);
    assertEquals(4, sum(ivs, iv -> iv.records), "no timeout while records come");
    assertEquals(1, sum(ivs, iv -> iv.errors));
    List<String[]> lines = Logs.closedLines(dir);
    String[] last = Logs.kind(lines, "R").get(3);
    String[] e = Logs.kind(lines, "E").get(0);
    assertEquals("Non HTTP response message: Read timed out", e[9]);
    long silence = (Long.parseLong(e[1]) - Long.parseLong(last[1])) / 1000;
    assertTrue(silence >= 380 && silence < 600, "ended 400 ms after its last record: " + silence + " ms");
  }

  // Three comet streams of 20 records each, held 300 ms past a load of loadMs, the timeouts far off (the
  // first deadline past the duration): every stream busy, none timed out. Returns the intervals.
  private List<MuxEngine.Interval> heldPastTheLoad(int loadMs, long sweepBoundedForMs) throws Exception {
    ChunkedServer server = server(new ChunkedServer());
    String records = IntStream.range(0, 20).mapToObj(i -> rec(i) + "\n").collect(Collectors.joining());
    for (int i = 0; i < 3; i++) server.answer(chunkedHead(200, "OK", NDJSON), chunk(records), pause(loadMs + 300), END);
    MuxConfig c = config(server.port(), MuxConfig.Type.COMET, 3, loadMs);
    c.connectTimeoutMs = 5000;
    c.responseTimeoutMs = 10000;
    c.sweepBoundedForMs = sweepBoundedForMs;
    List<MuxEngine.Interval> ivs = runOne(c);
    assertEquals(60, sum(ivs, iv -> iv.records));
    assertEquals(0, sum(ivs, iv -> iv.errors), "no stream timed out");
    return ivs;
  }

  // The sweeps of the intervals that ended within the load's first loadMs.
  private static long sweepsInTheLoad(List<MuxEngine.Interval> ivs, int loadMs) {
    long loadEnd = ivs.get(0).startMillis + loadMs;
    return ivs.stream().filter(iv -> iv.endMillis <= loadEnd).mapToLong(iv -> iv.sweeps).sum();
  }

  @Test
  void busyConnectionsAreSweptOnceASecondNotOnTheTimeoutsCadence() throws Exception {
    List<MuxEngine.Interval> ivs = heldPastTheLoad(1500, MuxConfig.SWEEP_BOUNDED_FOR_MS);
    // The load's 1.5 s: a sweep at the start, one a second later (SWEEP_AT_MOST_EVERY_MS) and one at the
    // duration's end; then every sweepEveryMs (250 ms here) until the server ends the streams. The old
    // cadence (sweepEveryMs from the start) swept 6 to 15 times in the load.
    long during = sweepsInTheLoad(ivs, 1500);
    assertTrue(during >= 1 && during <= 4, "sweeps in the load's 1.5 s: " + during);
    assertTrue(sum(ivs, iv -> iv.sweeps) > during, "swept after the duration's end, on the cadence");
  }

  @Test
  void afterTheBoundedSecondsBusyConnectionsAreSweptOnlyWhenATimeoutCanFallDue() throws Exception {
    List<MuxEngine.Interval> ivs = heldPastTheLoad(3000, 0);   // no bounded seconds: as the load after its first 30 s
    // The load's 3 s: the sweep at its start and the one at the duration's end (in the last interval or the
    // one after it); a sweep at least once a second would make 4.
    long during = sweepsInTheLoad(ivs, 3000);
    assertTrue(during >= 1 && during <= 2, "sweeps in the load's 3 s: " + during);
  }

  // ---- outcomes ------------------------------------------------------------------------------------------

  @Test
  void clientErrorAnswersFail() throws Exception {
    NioServer server = server(new NioServer((body, conn, n) -> List.of(NioServer.after(150, n == 0
        ? NioServer.lengthAnswer(400, "Bad Request", "{\"error\":{\"status\":400,\"message\":\"bad type\"}}")
        : NioServer.lengthAnswer(404, "Not Found", "no such path")))));
    List<MuxEngine.Interval> ivs = runOne(config(server.port(), MuxConfig.Type.POLL, 2, 100));
    assertEquals(2, sum(ivs, iv -> iv.answers));
    assertEquals(2, sum(ivs, iv -> iv.errors));
    Map<String, String[]> byCode = new HashMap<>();
    for (String[] e : Logs.kind(Logs.closedLines(dir), "E")) byCode.put(e[3], e);
    assertEquals("0", byCode.get("400")[4]);
    assertEquals("Bad Request", byCode.get("400")[9]);
    assertEquals(MuxEngine.NOT_ERROR, byCode.get("400")[10], "the not-error assertion sees the body");
    assertEquals("HTTP status 404 Not Found", byCode.get("404")[10]);
  }

  @Test
  void refusedAnswersBackOffInsteadOfSpinning() throws Exception {
    // Every request is refused at once (400 with an error body): one connection for 700 ms asks 100, 200
    // and 400 ms apart, not thousands of times.
    NioServer server = server(new NioServer((body, conn, n) -> List.of(
        NioServer.after(0, NioServer.lengthAnswer(400, "Bad Request", "{\"error\":{\"status\":400}}")))));
    MuxEngine engine = new MuxEngine(config(server.port(), MuxConfig.Type.POLL, 1, 5000), 0, 1, mono(), log);
    List<MuxEngine.Interval> ivs = List.of(engine.runFor(700));
    long answers = sum(ivs, iv -> iv.answers);
    assertTrue(answers >= 3 && answers <= 5, "refusals 0, 100, 300 (and 700) ms in: " + answers);
    assertEquals(answers, sum(ivs, iv -> iv.backoffs), "each refusal backs off");
    engine.close();
  }

  // Answers by request: a timeout record; comet streams with error in the last, a middle, the first record.
  private NioServer assertionServer() throws IOException {
    String timeout = "{\"response\":{\"timeout\":{\"duration\":100}}}";
    String error = "{\"error\":{\"status\":500}}";
    List<String> bodies = List.of(
        NioServer.lengthAnswer(200, "OK", timeout),
        NioServer.chunkedHead() + NioServer.chunk(rec(1) + "\n" + rec(2) + "\n" + error + "\n") + "0\r\n\r\n",
        NioServer.chunkedHead() + NioServer.chunk(rec(1) + "\n" + error + "\n" + rec(3) + "\n") + "0\r\n\r\n",
        NioServer.chunkedHead() + NioServer.chunk(error + "\n" + rec(2) + "\n") + "0\r\n\r\n",
        NioServer.lengthAnswer(200, "OK", rec(1)));
    return server(new NioServer((body, conn, n) -> List.of(NioServer.after(450, bodies.get(n)))));
  }

  // Each connection's one request is answered after the duration (no second one), which is long enough for
  // the engine's first step to come before its end on a loaded machine.
  private Map<String, Long> failures(boolean failOnTimeout) throws Exception {
    MuxConfig c = config(assertionServer().port(), MuxConfig.Type.POLL, 5, 400);
    c.failOnTimeout = failOnTimeout;
    List<MuxEngine.Interval> ivs = runOne(c);
    assertEquals(5, sum(ivs, iv -> iv.answers));
    return Logs.kind(Logs.closedLines(dir), "E").stream().collect(Collectors.groupingBy(e -> e[10], Collectors.counting()));
  }

  @Test
  void errorInTheFirstOrLastRecordFailsAndTimeoutFailsWhenAsked() throws Exception {
    assertEquals(Map.of(MuxEngine.NOT_ERROR, 2L, MuxEngine.NOT_TIMEOUT, 1L, "", 2L), failures(true));
  }

  @Test
  void timeoutPassesWithoutFailOnTimeout() throws Exception {
    assertEquals(Map.of(MuxEngine.NOT_ERROR, 2L, "", 3L), failures(false));
  }

  @Test
  void pullCarriesEachAnswersCursorToTheNextRequest() throws Exception {
    String head = "{\"type\":\"pull\",\"events\":[\"event1\"],\"cursor\":";
    NioServer server = server(new NioServer((body, conn, n) -> List.of(NioServer.after(0, n == 2
        ? NioServer.lengthAnswer(400, "Bad Request", "{\"error\":{\"status\":400}}")
        : NioServer.lengthAnswer(200, "OK", "{\"response\":{\"pull\":{\"events\":[],\"cursor\":{\"event1\":" + (n + 1)
            + "},\"skipped\":0}},\"request\":{\"type\":\"pull\",\"cursor\":{\"event1\":99}}}")))));
    MuxConfig c = config(server.port(), MuxConfig.Type.PULL, 1, 750);
    c.body = head;
    c.pullIntervalMs = 150;
    runOne(c);
    List<String> bodies = new ArrayList<>(server.bodies);
    assertTrue(bodies.size() >= 4 && bodies.size() <= 6, "a pull every 150 ms for 750 ms: " + bodies);
    assertEquals(head + "{}}", bodies.get(0));
    assertEquals(head + "{\"event1\":1}}", bodies.get(1));
    assertEquals(head + "{\"event1\":2}}", bodies.get(2));
    assertEquals(head + "{\"event1\":2}}", bodies.get(3), "an answer without a cursor keeps the old one");
    List<Long> at = new ArrayList<>(server.requestMillis);
    for (int i = 1; i < at.size(); i++) assertTrue(at.get(i) - at.get(i - 1) >= 145, "pull interval kept: " + at);
  }

  @Test
  void connectionCloseAnswersAreFollowedOnANewConnection() throws Exception {
    String answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "
        + rec(1).length() + "\r\n\r\n" + rec(1);
    NioServer server = server(new NioServer((body, conn, n) -> List.of(NioServer.after(30, answer))));
    List<MuxEngine.Interval> ivs = runOne(config(server.port(), MuxConfig.Type.POLL, 3, 400));
    long answers = sum(ivs, iv -> iv.answers);
    assertEquals(0, sum(ivs, iv -> iv.errors));
    assertTrue(answers >= 3 * 5, "polled on: " + answers);
    assertEquals(answers, server.accepted.get(), "a new connection for each poll");
    assertEquals(answers, sum(ivs, iv -> iv.opened));
  }

  @Test
  void reconnectsTheEngineClosesLeaveNoSocketBehind() throws Exception {
    // Each connection's first poll is answered with Connection: close, so its next goes on a reconnect (a
    // port of Dial's, SO_LINGER 0), which the server holds past the read timeout: the engine closes it. A FIN
    // close would leave it in FIN_WAIT2 (then TIME_WAIT) on the engine's side; a reset leaves nothing.
    String answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "
        + rec(1).length() + "\r\n\r\n" + rec(1);
    NioServer server = server(new NioServer((body, conn, n) -> List.of(NioServer.after(conn < 3 ? 30 : 5_000, answer))));
    MuxConfig c = config(server.port(), MuxConfig.Type.POLL, 3, 400);
    c.responseTimeoutMs = 300;
    List<MuxEngine.Interval> ivs = runOne(c);
    int reconnects = server.accepted.get() - 3;
    assertTrue(reconnects >= 3, "reconnected: " + reconnects);
    assertEquals(reconnects, sum(ivs, iv -> iv.errors), "each reconnect's poll timed out, closed by the engine");
    Thread.sleep(50);
    assertEquals(List.of(), enginesSockets(server.port()), "the engine's sockets to the server, by state (hex)");
  }

  @Test
  void aReconnectAfterAnUnannouncedCloseKeepsTheKernelsPortAndItsFinClose() throws Exception {
    // Each connection's first answer keeps it alive, then the server closes it (no Connection: close): the
    // next poll goes on a reconnect with the kernel's port, which the server holds past the read timeout.
    // The engine closes it as a browser would, with a FIN: its side stays (FIN_WAIT2 or TIME_WAIT).
    NioServer server = server(new NioServer((body, conn, n) -> conn < 3
        ? List.of(NioServer.after(30, NioServer.lengthAnswer(200, "OK", rec(1))), NioServer.closeAfter(20))
        : List.of(NioServer.after(5_000, NioServer.lengthAnswer(200, "OK", rec(1))))));
    MuxConfig c = config(server.port(), MuxConfig.Type.POLL, 3, 400);
    c.responseTimeoutMs = 300;
    List<MuxEngine.Interval> ivs = runOne(c);
    assertTrue(server.accepted.get() - 3 >= 3, "reconnected: " + (server.accepted.get() - 3));
    assertTrue(sum(ivs, iv -> iv.errors) >= 3, "the reconnects' polls timed out, closed by the engine");
    Thread.sleep(50);
    List<String> states = enginesSockets(server.port());
    assertTrue(states.size() >= 3 && states.stream().allMatch(st -> st.equals("05") || st.equals("06")),
        "the engine's FIN-closed sockets stay, FIN_WAIT2 (05) or TIME_WAIT (06): " + states);
  }

  // The states (hex, /proc/net/tcp) of the IPv4 sockets whose remote port is port: the engine's side.
  private static List<String> enginesSockets(int port) throws IOException {
    String hex = String.format(":%04X", port);
    List<String> states = new ArrayList<>();
    for (String line : java.nio.file.Files.readAllLines(Path.of("/proc/net/tcp"))) {
      String[] f = line.trim().split("\\s+");
      if (f.length > 3 && f[2].endsWith(hex)) states.add(f[3]);
    }
    return states;
  }

  @Test
  void aKeptAliveConnectionClosedByTheServerIsReplacedUnderTheSameSample() throws Exception {
    // Each connection is closed 30 ms after its first answer, while the next poll on it waits: that poll
    // sees the end before any byte and goes once more on a new connection, as the same sample.
    NioServer server = server(new NioServer((body, conn, n) -> List.of(
        NioServer.after(50, NioServer.lengthAnswer(200, "OK", rec(n))), NioServer.closeAfter(80))));
    List<MuxEngine.Interval> ivs = runOne(config(server.port(), MuxConfig.Type.POLL, 1, 500));
    long answers = sum(ivs, iv -> iv.answers);
    assertEquals(0, sum(ivs, iv -> iv.errors), "a stale connection is no error");
    assertTrue(answers >= 4, "polled on: " + answers);
    assertEquals(answers, server.accepted.get(), "one new connection per answer");
    assertTrue(server.requests.get() >= 2 * answers - 2, "each poll after the first sent twice: " + server.requests.get());
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(answers, Logs.kind(lines, "B").size(), "no B line for the retry");
    assertEquals(answers, Logs.kind(lines, "E").size());
  }

  // ---- time ----------------------------------------------------------------------------------------------

  @Test
  void rampUpOpensConnectionsNoFasterThanAsked() throws Exception {
    NioServer server = server(new NioServer((body, conn, n) -> List.of(
        NioServer.after(0, NioServer.chunkedHead() + NioServer.chunk(rec(1) + "\n")),
        NioServer.after(1200, "0\r\n\r\n"))));
    MuxConfig c = config(server.port(), MuxConfig.Type.COMET, 20, 1100);
    c.rampupMs = 1000;
    long start = mono();
    long startMicros = PushClient.nowMicros();
    MuxEngine e0 = new MuxEngine(c, 0, 2, start, log);
    MuxEngine e1 = new MuxEngine(c, 1, 2, start, log);
    CompletableFuture<List<MuxEngine.Interval>> other = CompletableFuture.supplyAsync(() -> run(e1));
    run(e0);
    other.get(10, TimeUnit.SECONDS);
    Map<Integer, Long> began = new HashMap<>();
    for (String[] b : Logs.kind(Logs.closedLines(dir), "B")) {
      began.putIfAbsent(Integer.parseInt(b[3].substring("Request 1-".length())) - 1, Long.parseLong(b[1]));
    }
    assertEquals(20, began.size(), "one stream per connection");
    for (int i = 0; i < 20; i++) {
      long ms = (began.get(i) - startMicros) / 1000;
      assertTrue(ms >= 50L * i - 3 && ms <= 50L * i + 150, "connection " + i + " opened at " + ms + " ms");
    }
  }

  @Test
  void threadStopsAfterTheDurationOnceEveryAnswerEnded() throws Exception {
    NioServer server = server(new NioServer((body, conn, n) -> List.of(
        NioServer.after(100, NioServer.lengthAnswer(200, "OK", rec(n))))));
    long startMicros = PushClient.nowMicros();
    long start = mono();
    List<MuxEngine.Interval> ivs = run(new MuxEngine(config(server.port(), MuxConfig.Type.POLL, 10, 500), 0, 1, start, log));
    long took = mono() - start;
    assertTrue(took >= 500 && took < 900, "ended after the duration and the last answers: " + took + " ms");
    assertEquals(0, ivs.get(ivs.size() - 1).open, "every connection closed");
    List<String[]> lines = Logs.closedLines(dir);
    for (String[] b : Logs.kind(lines, "B")) {
      assertTrue(Long.parseLong(b[1]) - startMicros <= 505_000, "no request after the duration");
    }
    assertEquals(Logs.kind(lines, "B").size(), Logs.kind(lines, "E").size());
    assertEquals(server.requests.get(), sum(ivs, iv -> iv.answers));
  }

  @Test
  void hardDeadlineClosesAStreamThatNeverEnds() throws Exception {
    ChunkedServer server = server(new ChunkedServer());
    server.answer(chunkedHead(200, "OK", NDJSON), (out, s) -> {
      for (int i = 1; ; i++) {
        chunk(rec(i) + "\n").play(out, s);
        Thread.sleep(100);
      }
    });
    MuxConfig c = config(server.port(), MuxConfig.Type.COMET, 1, 200);
    c.responseTimeoutMs = 300;
    c.deadlineGraceMs = 300;
    long start = mono();
    List<MuxEngine.Interval> ivs = run(new MuxEngine(c, 0, 1, start, log));
    long took = mono() - start;
    assertTrue(took >= 780 && took < 2000, "closed at duration + response timeout + grace: " + took + " ms");
    assertEquals(1, sum(ivs, iv -> iv.errors));
    assertTrue(ivs.stream().anyMatch(iv -> iv.firstFailure != null && iv.firstFailure.contains("engine deadline")));
    String[] e = Logs.kind(Logs.closedLines(dir), "E").get(0);
    assertEquals("Non HTTP response code: java.io.InterruptedIOException", e[3]);
    assertEquals("Non HTTP response message: engine deadline", e[9]);
    assertTrue(Integer.parseInt(e[5]) >= 5, "the records before it were read: " + e[5]);
  }

  // ---- errors --------------------------------------------------------------------------------------------

  @Test
  void refusedConnectionsBackOffAndRecoverWhenTheServerComesUp() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) { port = probe.getLocalPort(); }
    MuxConfig c = config(port, MuxConfig.Type.POLL, 3, 1500);
    MuxEngine engine = new MuxEngine(c, 0, 1, mono(), log);
    List<MuxEngine.Interval> ivs = new ArrayList<>(List.of(engine.runFor(650)));
    server(new NioServer(port, (body, conn, n) -> List.of(NioServer.after(50, NioServer.lengthAnswer(200, "OK", rec(n)))),
        n -> false));
    ivs.addAll(run(engine));
    List<String[]> lines = Logs.closedLines(dir);
    Map<String, List<String[]>> samples = Logs.bySample(lines);
    Map<String, List<long[]>> attempts = new HashMap<>();   // thread -> (B µs, ok) in order
    for (List<String[]> s : samples.values()) {
      String[] e = s.get(s.size() - 1);
      attempts.computeIfAbsent(s.get(0)[3], k -> new ArrayList<>())
          .add(new long[] {Long.parseLong(s.get(0)[1]), Long.parseLong(e[4])});
      if (e[4].equals("0")) assertEquals("Non HTTP response code: java.net.ConnectException", e[3]);
    }
    assertEquals(3, attempts.size());
    long refused = sum(ivs, iv -> iv.errors);
    assertEquals(refused, sum(ivs, iv -> iv.backoffs), "each refusal backs off");
    for (List<long[]> a : attempts.values()) {
      assertEquals(0, a.get(0)[1], "refused first");
      assertEquals(1, a.get(a.size() - 1)[1], "answered once the server is up");
      long expected = MuxEngine.BACKOFF_FIRST_MS;
      for (int i = 1; i < a.size() && a.get(i - 1)[1] == 0; i++, expected *= 2) {
        long gap = (a.get(i)[0] - a.get(i - 1)[0]) / 1000;
        assertTrue(gap >= expected - 5, "backoff " + expected + " ms kept: " + gap + " ms");
      }
    }
    assertTrue(refused >= 9 && refused <= 15, "100, 200, 400 ms backoffs in 650 ms: " + refused);
  }

  @Test
  void resetConnectionsAreTheirOwnErrorsWhileTheOthersGoOn() throws Exception {
    NioServer server = server(new NioServer(0, (body, conn, n) ->
        List.of(NioServer.after(50, NioServer.lengthAnswer(200, "OK", rec(n)))), n -> n < 10 && n % 2 == 1));
    List<MuxEngine.Interval> ivs = runOne(config(server.port(), MuxConfig.Type.POLL, 10, 600));
    assertEquals(5, sum(ivs, iv -> iv.errors), "the five reset connections");
    List<String[]> lines = Logs.closedLines(dir);
    Map<String, String> threadOf = new HashMap<>();
    for (String[] b : Logs.kind(lines, "B")) threadOf.put(b[2], b[3]);
    Set<String> answered = new HashSet<>();
    for (String[] e : Logs.kind(lines, "E")) {
      if (e[4].equals("1")) answered.add(threadOf.get(e[2]));
      else assertTrue(e[3].startsWith("Non HTTP response code: java."), e[3]);
    }
    assertEquals(10, answered.size(), "every connection answered, the reset ones after reconnecting");
    assertTrue(sum(ivs, iv -> iv.answers) - 5 >= 10 * 5, "the others polled on");
    assertEquals(5, sum(ivs, iv -> iv.backoffs));
    assertEquals(15, server.accepted.get(), "each reset connection reconnected once");
  }

  @Test
  void noLogMeansNoLinesButTheSameCounts() throws Exception {
    NioServer server = server(new NioServer((body, conn, n) -> List.of(
        NioServer.after(20, NioServer.lengthAnswer(200, "OK", rec(n))))));
    List<MuxEngine.Interval> ivs = run(new MuxEngine(config(server.port(), MuxConfig.Type.POLL, 5, 300), 0, 1, mono(), null));
    assertEquals(server.requests.get(), sum(ivs, iv -> iv.answers));
    assertFalse(ivs.isEmpty());
    assertNull(ivs.get(0).firstFailure);
    assertTrue(Logs.files(dir).isEmpty());
  }
}
