package pushbench.jmeter;

// JUnit of the mux engine's WebSocket streams (issue #38 item 3; docs/protocol.md "WebSocket", "Replay and
// gaps"; docs/engine.md "WebSocket") on real sockets (127.0.0.1), the server scripted byte by byte
// (WsServer): the upgrade (its key, version, the subscription as a masked text frame), records split across
// frames and TCP reads, a fragmented message with a ping between its fragments (answered with a masked pong
// of the same payload), a message of 8-byte length, a frame broken mid-way (a failed answer, what was read
// kept and the rest counted as cut), a server close 1000 (an answer like a comet stream's) and 1008 (a
// failure naming it, then a backoff), a reconnection whose subscription carries the cursor of the last
// cycle per name (from event, gap and replay records), a bad Sec-WebSocket-Accept and a non-101 answer
// refused. Each record is a text message's payload, logged as an R line exactly as a comet record is.
// Every test is bounded in time, its load on the loopback only.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static pushbench.jmeter.WsServer.CLOSE;
import static pushbench.jmeter.WsServer.close;
import static pushbench.jmeter.WsServer.concat;
import static pushbench.jmeter.WsServer.pause;
import static pushbench.jmeter.WsServer.slice;
import static pushbench.jmeter.WsServer.text;
import static pushbench.jmeter.WsServer.trickle;
import static pushbench.jmeter.WsServer.write;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MuxWsTest {
  private static final String SUBSCRIPTION = "{\"type\":\"ws\",\"events\":[\"event1\"]}";

  @TempDir Path dir;
  private StreamLog log;
  private WsServer server;

  @BeforeEach
  void open() throws IOException {
    log = StreamLog.of(dir, 0);
    server = new WsServer();
  }

  @AfterEach
  void stop() throws Exception {
    StreamLog.closeAll();
    server.close();
  }

  // A record as the servers write it, longer than 125 bytes (a 16-bit length).
  static String rec(int cycle) {
    return "{\"response\":{\"event\":{\"name\":\"event1\",\"cycle\":" + cycle + ",\"timings\":{\"duration\":3,\"sent\":1700000000123,"
        + "\"created\":1700000000120},\"connections\":{\"total\":50,\"place\":12}}},\"request\":{\"type\":\"ws\",\"events\":[\"event1\"]}}";
  }

  static String replay(int cycle) {
    return "{\"response\":{\"replay\":{\"name\":\"event1\",\"cycle\":" + cycle + ",\"timings\":{\"duration\":1}}},\"request\":{\"type\":\"ws\"}}";
  }

  static String gap(int from, int to) {
    return "{\"response\":{\"gap\":{\"name\":\"event1\",\"from\":" + from + ",\"to\":" + to + ",\"skipped\":"
        + (to - from + 1) + "}},\"request\":{\"type\":\"ws\"}}";
  }

  private MuxConfig config(long durationMs) {
    MuxConfig c = new MuxConfig();
    c.port = server.port();
    c.type = MuxConfig.Type.WS;
    c.method = "GET";
    c.path = "/request";
    c.body = SUBSCRIPTION;
    c.connections = 1;
    c.durationMs = durationMs;
    c.responseTimeoutMs = 10_000;
    c.connectTimeoutMs = 5_000;
    return c;
  }

  private List<MuxEngine.Interval> runOne(MuxConfig c) throws IOException {
    return MuxEngineTest.run(new MuxEngine(c, 0, 1, MuxEngineTest.mono(), log));
  }

  private List<WsServer.Frame> closesReceived() {
    return server.received.stream().filter(f -> f.opcode() == WsFrames.CLOSE).collect(Collectors.toList());
  }

  private static int code(WsServer.Frame f) {
    return ((f.payload()[0] & 0xFF) << 8) | (f.payload()[1] & 0xFF);
  }

  @Test
  void recordsSplitAcrossFramesAndReadsArriveWholeWhenTheirLastByteDoes() throws Exception {
    byte[] fourth = text(rec(4));
    server.accept(trickle(text(rec(1)), 1),                  // one byte per write
        pause(50), write(concat(text(rec(2)), text(rec(3)))),   // two frames in one write
        pause(50), write(slice(fourth, 0, 30)), pause(150), write(slice(fourth, 30, fourth.length)),
        pause(20), write(close(1000, "")));
    List<MuxEngine.Interval> ivs = runOne(config(300));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.answers));
    assertEquals(0, MuxEngineTest.sum(ivs, iv -> iv.errors));
    assertEquals(4, MuxEngineTest.sum(ivs, iv -> iv.records));
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of(rec(1), rec(2), rec(3), rec(4)), Logs.records(lines), "each text frame's payload, nothing else");
    List<String[]> r = Logs.kind(lines, "R");
    assertEquals(r.get(1)[1], r.get(2)[1], "one read, one stamp");
    long apart = Long.parseLong(r.get(3)[1]) - Long.parseLong(r.get(2)[1]);
    assertTrue(apart >= 190_000, "stamped at the read of its last byte: " + apart + " µs after the one before");
    String[] e = Logs.kind(lines, "E").get(0);
    assertEquals("101", e[3]);
    assertEquals("1", e[4], "a stream the server closed with 1000 is a good answer");
    assertEquals("4", e[5], "records");
    assertEquals("0", e[7], "no cut bytes");
    assertEquals("", e[10]);

    String request = server.requests.get(0);
    assertTrue(request.startsWith("GET /request HTTP/1.1\r\n"), request);
    assertEquals("websocket", WsServer.header(request, "Upgrade"));
    assertEquals("Upgrade", WsServer.header(request, "Connection"));
    assertEquals("13", WsServer.header(request, "Sec-WebSocket-Version"));
    assertEquals(16, java.util.Base64.getDecoder().decode(WsServer.header(request, "Sec-WebSocket-Key")).length);
    WsServer.Frame sub = server.subscriptions.get(0);
    assertEquals(WsFrames.TEXT, sub.opcode());
    assertTrue(sub.masked(), "a client's frames are masked");
    assertEquals(SUBSCRIPTION, sub.text(), "the first subscription carries no cursor");
    waitFor(() -> !closesReceived().isEmpty());
    WsServer.Frame closeFrame = closesReceived().get(0);
    assertTrue(closeFrame.masked());
    assertEquals(1000, code(closeFrame), "the close answered with its code");
  }

  @Test
  void aFragmentedMessageIsOneRecordAndAPingBetweenItsFragmentsIsAnswered() throws Exception {
    String big = rec(2).replace("\"total\":50", "\"total\":50,\"pad\":\"" + "x".repeat(70_000) + "\"");   // an 8-byte length
    server.accept(write(WsServer.frame(WsFrames.TEXT, false, "{\"part\":1,".getBytes(StandardCharsets.UTF_8))),
        pause(30), write(WsServer.frame(WsFrames.PING, true, "hello".getBytes(StandardCharsets.UTF_8))),
        pause(30), write(WsServer.frame(WsFrames.CONTINUATION, false, "\"part\":2,".getBytes(StandardCharsets.UTF_8))),
        pause(30), write(WsServer.frame(WsFrames.CONTINUATION, true, "\"part\":3}".getBytes(StandardCharsets.UTF_8))),
        write(text(big)), pause(30), write(close(1001, "going away")));
    List<MuxEngine.Interval> ivs = runOne(config(300));
    assertEquals(0, MuxEngineTest.sum(ivs, iv -> iv.errors), "1001 (a shutdown) is a normal end");
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of("{\"part\":1,\"part\":2,\"part\":3}", big), Logs.records(lines));
    waitFor(() -> server.received.size() >= 2);
    WsServer.Frame pong = server.received.get(0);
    assertEquals(WsFrames.PONG, pong.opcode());
    assertTrue(pong.masked());
    assertEquals("hello", pong.text(), "the pong carries the ping's payload");
    assertEquals(1001, code(closesReceived().get(0)));
  }

  @Test
  void aFrameBrokenMidwayIsAFailedAnswerWithWhatWasReadKept() throws Exception {
    byte[] second = text(rec(2));
    server.accept(write(text(rec(1))), pause(30), write(slice(second, 0, 4 + 40)), pause(30), CLOSE);
    List<MuxEngine.Interval> ivs = runOne(config(200));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.errors));
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of(rec(1)), Logs.records(lines), "the record read before the break is kept");
    String[] e = Logs.kind(lines, "E").get(0);
    assertEquals("Non HTTP response code: java.io.EOFException", e[3]);
    assertEquals("0", e[4]);
    assertEquals("1", e[5]);
    assertEquals("40", e[7], "the payload bytes read of the broken frame count as cut");
    assertTrue(e[10].contains("WebSocket stream ended inside a frame"), e[10]);
  }

  @Test
  void aServerClose1008IsAFailureNamingItsCodeAndTheConnectionBacksOff() throws Exception {
    server.accept(write(close(1008, "policy violation")));
    List<MuxEngine.Interval> ivs = runOne(config(300));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.answers));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.errors));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.backoffs));
    String[] e = Logs.kind(Logs.closedLines(dir), "E").get(0);
    assertEquals("101", e[3]);
    assertEquals("0", e[4]);
    assertEquals("WebSocket close 1008 policy violation", e[10]);
    waitFor(() -> !closesReceived().isEmpty());
    assertEquals(1008, code(closesReceived().get(0)), "the close answered with its code");
  }

  @Test
  void aReconnectionSubscribesWithTheCursorOfTheLastCycleItGot() throws Exception {
    server.accept(write(concat(text(rec(1)), text(rec(2)))), pause(20), write(close(1000, "")));
    server.accept(write(concat(text(gap(3, 120)), text(replay(121)))), pause(20), CLOSE);   // no close frame
    server.accept(write(text(rec(122))), pause(600), write(close(1000, "")));
    MuxConfig c = config(1000);
    c.wsRetryMs = 200;
    List<MuxEngine.Interval> ivs = runOne(c);
    assertEquals(3, MuxEngineTest.sum(ivs, iv -> iv.answers));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.errors), "the stream that ended without a close frame");
    assertEquals(List.of(SUBSCRIPTION, "{\"type\":\"ws\",\"events\":[\"event1\"],\"cursor\":{\"event1\":2}}",
            "{\"type\":\"ws\",\"events\":[\"event1\"],\"cursor\":{\"event1\":121}}"),
        server.subscriptions.stream().map(WsServer.Frame::text).collect(Collectors.toList()),
        "the cursor: the last event's cycle, then past the gap's `to` to the replay's cycle");
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of(rec(1), rec(2), gap(3, 120), replay(121), rec(122)), Logs.records(lines));
    List<String[]> ends = Logs.kind(lines, "E");
    assertTrue(ends.get(1)[10].contains("WebSocket stream ended without a close frame"), ends.get(1)[10]);
    List<String[]> begins = Logs.kind(lines, "B");
    long waited = Long.parseLong(begins.get(1)[1]) - Long.parseLong(ends.get(0)[1]);
    assertTrue(waited >= 190_000 && waited < 1_000_000, "reconnected after wsRetryMs: " + waited + " µs");
    assertEquals(begins.get(0)[3], begins.get(2)[3], "the same connection's thread");
  }

  @Test
  void churnDropsAnOpenStreamWithoutACloseFrameAndItsReconnectionCarriesTheCursor() throws Exception {
    server.accept(write(concat(text(rec(1)), text(rec(2)))), pause(1500), write(close(1000, "")));   // open at the churn
    server.accept(write(text(replay(3))), pause(300), write(close(1000, "")));
    MuxConfig c = config(1500);
    c.wsRetryMs = 200;
    c.churnShare = 1.0;
    List<MuxEngine.Interval> ivs = runOne(c);
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.churned));
    assertEquals(0, MuxEngineTest.sum(ivs, iv -> iv.errors), "a drop by churn is no failure");
    assertEquals(List.of(SUBSCRIPTION, "{\"type\":\"ws\",\"events\":[\"event1\"],\"cursor\":{\"event1\":2}}"),
        server.subscriptions.stream().map(WsServer.Frame::text).collect(Collectors.toList()));
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of(rec(1), rec(2), replay(3)), Logs.records(lines));
    String[] dropped = Logs.kind(lines, "E").get(0);
    assertEquals("101", dropped[3]);
    assertEquals("1", dropped[4]);
    assertEquals(MuxEngine.CHURNED, dropped[9]);
    waitFor(() -> !closesReceived().isEmpty());
    assertEquals(List.of(2), closesReceived().stream().map(WsServer.Frame::connection).collect(Collectors.toList()),
        "dropped as a network drops it: no close frame on the first connection, the second's close answered");
  }

  @Test
  void aBadAcceptIsAFailedAnswerAndNoSubscriptionIsSent() throws Exception {
    server.acceptBadly(pause(500));
    List<MuxEngine.Interval> ivs = runOne(config(150));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.errors));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.backoffs));
    String[] e = Logs.kind(Logs.closedLines(dir), "E").get(0);
    assertEquals("0", e[4]);
    assertTrue(e[10].startsWith("WebSocket handshake: Sec-WebSocket-Accept"), e[10]);
    Thread.sleep(100);
    assertEquals(List.of(), server.subscriptions);
  }

  @Test
  void aRefusedUpgradeIsItsJsonRecordAndFails() throws Exception {
    server.answer(NioServer.lengthAnswer(400, "Bad Request", "{\"error\":{\"status\":400,\"message\":\"no websocket\"}}"));
    List<MuxEngine.Interval> ivs = runOne(config(150));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.errors));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.backoffs));
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of("{\"error\":{\"status\":400,\"message\":\"no websocket\"}}"), Logs.records(lines));
    assertEquals("400", Logs.kind(lines, "E").get(0)[3]);
  }

  @Test
  void theCursorIsReadFromARecordsLeadingBytesAndGoesIntoTheSubscription() {
    MuxConfig c = config(1000);
    c.body = "{\"type\":\"ws\",\"events\":[\"event1\",\"e2\"]}";
    byte[][] names = c.wsEvents();
    assertEquals(2, names.length);
    long[] cycles = {-1, -1};
    for (String r : List.of(rec(7), gap(3, 9).replace("event1", "e2"), "{\"response\":{\"clear\":{\"reason\":\"clear\"}}}",
        "{\"response\":{\"event\":{\"name\":\"event10\",\"cycle\":99}}}")) {
      byte[] b = r.getBytes(StandardCharsets.UTF_8);
      WsFrames.noteCycle(b, 0, b.length, names, cycles);
    }
    assertEquals(7, cycles[0], "event1's cycle; event10 is another name");
    assertEquals(9, cycles[1], "a gap moves the cursor to its `to`");
    assertEquals("{\"type\":\"ws\",\"events\":[\"event1\",\"e2\"],\"cursor\":{\"event1\":7,\"e2\":9}}",
        new String(c.wsSubscription(cycles), StandardCharsets.UTF_8));
    assertEquals("{\"type\":\"ws\",\"events\":[\"event1\",\"e2\"],\"cursor\":{\"e2\":9}}",
        new String(c.wsSubscription(new long[] {-1, 9}), StandardCharsets.UTF_8), "only names it got a cycle of");
  }

  private static void waitFor(java.util.function.BooleanSupplier done) throws InterruptedException {
    for (int i = 0; i < 100 && !done.getAsBoolean(); i++) Thread.sleep(20);
  }
}
