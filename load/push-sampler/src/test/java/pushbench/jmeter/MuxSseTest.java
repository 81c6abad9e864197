package pushbench.jmeter;

// JUnit of the mux engine's Server-Sent Events (docs/protocol.md "Server-Sent Events", "Replay and gaps")
// on real sockets (127.0.0.1), the server scripted byte by byte (ChunkedServer): events split across TCP
// reads and chunk boundaries, CRLF line ends, a comment line, a retry field, several data lines, a stream
// cut mid-event (not dispatched, its bytes cut), the reconnection after the server's retry with
// Last-Event-ID and the replay it gets, one beyond the replay bound that gets a gap record, and an error
// answer (not an event stream) read as its JSON record. Each record is the event's data, logged as an R
// line exactly as a comet record is. Every test is bounded in time, its load on the loopback only.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static pushbench.jmeter.ChunkedServer.CLOSE;
import static pushbench.jmeter.ChunkedServer.END;
import static pushbench.jmeter.ChunkedServer.chunk;
import static pushbench.jmeter.ChunkedServer.chunkedHead;
import static pushbench.jmeter.ChunkedServer.pause;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MuxSseTest {
  private static final String SSE = "text/event-stream";
  private static final String PATH = "/request?type=sse&events=event1";

  @TempDir Path dir;
  private StreamLog log;
  private ChunkedServer server;

  @BeforeEach
  void open() throws IOException {
    log = StreamLog.of(dir, 0);
    server = new ChunkedServer();
  }

  @AfterEach
  void stop() throws Exception {
    StreamLog.closeAll();
    server.close();
  }

  static String rec(int cycle) {
    return "{\"response\":{\"event\":{\"name\":\"event1\",\"cycle\":" + cycle + "}},\"request\":{\"type\":\"sse\",\"events\":[\"event1\"]}}";
  }

  static String replay(int cycle) {
    return "{\"response\":{\"replay\":{\"name\":\"event1\",\"cycle\":" + cycle + "}},\"request\":{\"type\":\"sse\"}}";
  }

  static String gap(int from, int to) {
    return "{\"response\":{\"gap\":{\"name\":\"event1\",\"from\":" + from + ",\"to\":" + to + ",\"skipped\":"
        + (to - from + 1) + "}},\"request\":{\"type\":\"sse\"}}";
  }

  // One event as the servers write it.
  static String event(String id, String data) {
    return "id: " + id + "\ndata: " + data + "\n\n";
  }

  private MuxConfig config(long durationMs) {
    MuxConfig c = new MuxConfig();
    c.port = server.port();
    c.type = MuxConfig.Type.SSE;
    c.method = "GET";
    c.path = PATH;
    c.connections = 1;
    c.durationMs = durationMs;
    c.responseTimeoutMs = 10_000;
    c.connectTimeoutMs = 5_000;
    return c;
  }

  private List<MuxEngine.Interval> runOne(MuxConfig c) throws IOException {
    return MuxEngineTest.run(new MuxEngine(c, 0, 1, MuxEngineTest.mono(), log));
  }

  private static String header(String request, String name) {
    for (String line : request.split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) return line.substring(colon + 1).trim();
    }
    return null;
  }

  @Test
  void eventsSplitAcrossReadsAndChunksArriveWholeWhenTheirBlankLineDoes() throws Exception {
    String first = event("event1:1", rec(1));
    List<ChunkedServer.Step> steps = new ArrayList<>();
    steps.add(chunkedHead(200, "OK", SSE));
    for (char ch : first.toCharArray()) {   // one byte per chunk and per write
      steps.add(chunk(String.valueOf(ch)));
      steps.add(pause(1));
    }
    String second = "id: event1:2\r\ndata: " + rec(2) + "\r\n\r\n";   // CRLF line ends
    steps.add(chunk(second.substring(0, 30)));
    steps.add(pause(80));
    steps.add(chunk(second.substring(30, second.length() - 2)));   // all but its blank line
    steps.add(pause(80));
    steps.add(chunk(second.substring(second.length() - 2)));
    steps.add(END);
    server.answer(steps.toArray(new ChunkedServer.Step[0]));
    List<MuxEngine.Interval> ivs = runOne(config(100));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.answers));
    assertEquals(0, MuxEngineTest.sum(ivs, iv -> iv.errors));
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of(rec(1), rec(2)), Logs.records(lines), "each event's data, nothing else");
    List<String[]> r = Logs.kind(lines, "R");
    long apart = Long.parseLong(r.get(1)[1]) - Long.parseLong(r.get(0)[1]);
    assertTrue(apart >= 150_000, "stamped at its blank line: " + apart + " µs after the first");
    String[] e = Logs.kind(lines, "E").get(0);
    assertEquals("200", e[3]);
    assertEquals("1", e[4]);
    assertEquals("2", e[5], "records");
    assertEquals(String.valueOf(first.length() + second.length()), e[6], "body bytes");
    assertEquals("0", e[7], "no cut bytes");
    String request = server.requests.get(0);
    assertTrue(request.startsWith("GET " + PATH + " HTTP/1.1\r\n"), request);
    assertEquals(SSE, header(request, "Accept"));
    assertEquals(null, header(request, "Last-Event-ID"), "a first subscription names no event");
  }

  @Test
  void commentsOtherFieldsAndSeveralEventsInOneReadAreReadAsEventSourceReadsThem() throws Exception {
    String body = ": a comment\n\n"                       // a comment alone: no event
        + "retry: 2500\nid: event1:1\ndata: " + rec(1) + "\n\n"
        + ":keep-alive\nevent: message\nid: event1:2\ndata:" + rec(2) + "\n\n"   // no space after the colon
        + "id: event1:3\n\n"                            // an id without data: no record
        + "data: {\"a\":1,\ndata: \"b\":2}\n\n";          // two data lines: one record
    server.answer(chunkedHead(200, "OK", SSE), chunk(body), END);
    List<MuxEngine.Interval> ivs = runOne(config(100));
    assertEquals(0, MuxEngineTest.sum(ivs, iv -> iv.errors));
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of(rec(1), rec(2), "{\"a\":1, \"b\":2}"), Logs.records(lines),
        "two data lines joined by a space: a record is one line");
    List<String[]> r = Logs.kind(lines, "R");
    assertEquals(r.get(0)[1], r.get(2)[1], "one read, one stamp");
    assertEquals("3", Logs.kind(lines, "E").get(0)[5]);
  }

  @Test
  void aStreamCutMidEventReconnectsAfterTheRetryWithTheLastIdAndGetsTheReplay() throws Exception {
    server.answer(chunkedHead(200, "OK", SSE),
        chunk("retry: 300\n\n" + event("event1:1", rec(1)) + event("event1:2", rec(2))),
        pause(50), chunk("id: event1:3\ndata: " + rec(3).substring(0, 20)), pause(50), CLOSE);
    server.answer(chunkedHead(200, "OK", SSE),
        chunk(event("event1:3", replay(3)) + event("event1:4", rec(4))), pause(1200), END);
    long start = MuxEngineTest.mono();
    List<MuxEngine.Interval> ivs = runOne(config(800));
    assertTrue(MuxEngineTest.mono() - start < 5000, "ended after the second stream");
    assertEquals(2, MuxEngineTest.sum(ivs, iv -> iv.answers));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.errors), "the cut stream");
    assertEquals(2, server.requests.size());
    assertEquals("event1:2", header(server.requests.get(1), "Last-Event-ID"),
        "the last id dispatched: event 3 was cut before its blank line");
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of(rec(1), rec(2), replay(3), rec(4)), Logs.records(lines));
    List<String[]> ends = Logs.kind(lines, "E");
    assertEquals("Non HTTP response code: java.io.EOFException", ends.get(0)[3]);
    assertEquals("2", ends.get(0)[5]);
    assertEquals(String.valueOf(("id: event1:3\ndata: " + rec(3).substring(0, 20)).length()), ends.get(0)[7], "cut bytes");
    assertEquals("200", ends.get(1)[3]);
    assertEquals("1", ends.get(1)[4]);
    List<String[]> begins = Logs.kind(lines, "B");
    long waited = Long.parseLong(begins.get(1)[1]) - Long.parseLong(ends.get(0)[1]);
    assertTrue(waited >= 290_000 && waited < 1_000_000, "reconnected after the server's retry of 300 ms: " + waited + " µs");
    assertEquals(begins.get(0)[3], begins.get(1)[3], "the same connection's thread");
  }

  @Test
  void aReconnectionBeyondTheReplayBoundGetsTheGapRecordFirst() throws Exception {
    server.answer(chunkedHead(200, "OK", SSE), chunk("retry: 100\n\n" + event("event1:2", rec(2))), END);
    server.answer(chunkedHead(200, "OK", SSE),
        chunk(event("event1:120", gap(3, 120)) + event("event1:121", replay(121)) + event("event1:122", replay(122))),
        pause(1000), END);
    List<MuxEngine.Interval> ivs = runOne(config(600));
    assertEquals(0, MuxEngineTest.sum(ivs, iv -> iv.errors), "a stream the server ended is an answer like a comet stream's");
    assertEquals("event1:2", header(server.requests.get(1), "Last-Event-ID"));
    assertEquals(List.of(rec(2), gap(3, 120), replay(121), replay(122)), Logs.records(Logs.closedLines(dir)));
  }

  @Test
  void churnDropsAnOpenStreamEachSecondAndItsReconnectionResumesWithTheLastId() throws Exception {
    server.answer(chunkedHead(200, "OK", SSE), chunk("retry: 200\n\n" + event("event1:1", rec(1)) + event("event1:2", rec(2))),
        pause(1500), END);   // still open when the churn drops it at 1 s
    server.answer(chunkedHead(200, "OK", SSE), chunk(event("event1:3", replay(3)) + event("event1:4", rec(4))), pause(300), END);
    MuxConfig c = config(1500);
    c.churnShare = 1.0;
    List<MuxEngine.Interval> ivs = runOne(c);
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.churned), "dropped once: the second stream opens after 1.2 s and the next churn is at 2 s, after the duration");
    assertEquals(2, MuxEngineTest.sum(ivs, iv -> iv.answers));
    assertEquals(0, MuxEngineTest.sum(ivs, iv -> iv.errors), "a drop by churn is no failure");
    assertEquals("event1:2", header(server.requests.get(1), "Last-Event-ID"));
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of(rec(1), rec(2), replay(3), rec(4)), Logs.records(lines));
    List<String[]> ends = Logs.kind(lines, "E");
    assertEquals("200", ends.get(0)[3]);
    assertEquals("1", ends.get(0)[4], "ok");
    assertEquals("2", ends.get(0)[5], "records");
    assertEquals(MuxEngine.CHURNED, ends.get(0)[9]);
    long dropped = Long.parseLong(ends.get(0)[1]) - Long.parseLong(Logs.kind(lines, "B").get(0)[1]);
    assertTrue(dropped >= 950_000 && dropped < 1_400_000, "dropped at the first churn, 1 s after the start: " + dropped + " µs");
    long waited = Long.parseLong(Logs.kind(lines, "B").get(1)[1]) - Long.parseLong(ends.get(0)[1]);
    assertTrue(waited >= 190_000 && waited < 800_000, "requested again after the server's retry: " + waited + " µs");
  }

  @Test
  void churnIsAShareOfSseAndWebSocketStreamsOnly() {
    MuxConfig c = MuxConfig.parse("request", "127.0.0.1", "8080", "GET", PATH, "", "", "1000", "1000", "10", "0", "1", "sse",
        "1000", "false", "1000", "12.5");
    assertEquals(0.125, c.churnShare, 1e-9);
    IllegalArgumentException comet = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> MuxConfig.parse("request", "127.0.0.1", "8080", "POST", "/request", "", "", "1000", "1000", "10", "0", "1",
            "comet", "1000", "false", "1000", "5"));
    assertEquals("churn drops SSE and WebSocket streams only, not comet", comet.getMessage());
    IllegalArgumentException range = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> MuxConfig.parse("request", "127.0.0.1", "8080", "GET", PATH, "", "", "1000", "1000", "10", "0", "1",
            "sse", "1000", "false", "1000", "101"));
    assertEquals("churn out of range 0..100 (percent): 101", range.getMessage());
    assertEquals(0, MuxConfig.parse("request", "127.0.0.1", "8080", "POST", "/request", "", "", "1000", "1000", "10", "0", "1",
        "poll", "1000", "false", "1000", "").churnShare, "empty: none");
  }

  @Test
  void withoutARetryTheReconnectionWaitsTheDefault() throws Exception {
    server.answer(chunkedHead(200, "OK", SSE), chunk(event("event1:7", rec(7))), END);
    server.answer(chunkedHead(200, "OK", SSE), pause(200), END);
    List<MuxEngine.Interval> ivs = runOne(config(MuxConfig.SSE_RETRY_MS + 400));
    assertEquals(2, server.requests.size(), "one reconnection within the duration");
    assertEquals("event1:7", header(server.requests.get(1), "Last-Event-ID"));
    List<String[]> lines = Logs.closedLines(dir);
    long waited = Long.parseLong(Logs.kind(lines, "B").get(1)[1]) - Long.parseLong(Logs.kind(lines, "E").get(0)[1]);
    assertTrue(waited >= MuxConfig.SSE_RETRY_MS * 1000L - 10_000, "waited the default retry: " + waited + " µs");
    assertEquals(0, MuxEngineTest.sum(ivs, iv -> iv.errors));
  }

  @Test
  void anErrorAnswerIsItsJsonRecordAndFails() throws Exception {
    server.answer(ChunkedServer.lengthHead(400, "Bad Request", "{\"error\":{\"status\":400,\"message\":\"bad events\"}}", true));
    List<MuxEngine.Interval> ivs = runOne(config(200));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.errors));
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of("{\"error\":{\"status\":400,\"message\":\"bad events\"}}"), Logs.records(lines));
    String[] e = Logs.kind(lines, "E").get(0);
    assertEquals("400", e[3]);
    assertEquals(MuxEngine.NOT_ERROR, e[10]);
    assertFalse(ivs.stream().anyMatch(iv -> iv.opened > 1), "backed off rather than asking again at once");
  }

  @Test
  void theSseRequestNamesTheLastEventIdOnlyWhenThereIsOne() {
    MuxConfig c = config(1000);
    String first = new String(c.sseRequest(null), java.nio.charset.StandardCharsets.ISO_8859_1);
    assertEquals("GET " + PATH + " HTTP/1.1\r\nHost: 127.0.0.1:" + c.port
        + "\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\nConnection: keep-alive\r\n\r\n", first);
    String again = new String(c.sseRequest("event1:17,event2:4".getBytes(java.nio.charset.StandardCharsets.US_ASCII)),
        java.nio.charset.StandardCharsets.ISO_8859_1);
    assertEquals("event1:17,event2:4", header(again, "Last-Event-ID"));
    assertTrue(again.endsWith("\r\nConnection: keep-alive\r\n\r\n"), again);
  }
}
