package pushbench.jmeter;

// JUnit of the mux engine's target mode (issue #47, docs/targets.md) on real sockets (127.0.0.1), the
// servers scripted byte by byte (ChunkedServer, WsServer): the spec's URL, headers and placeholders on the
// wire; connections spread over the channels; stream framing (lines, chunks) with messages split across
// reads; no built-in assertion on a message ("error" in it is a message); a message's line ends written as
// spaces; a poll subscription as one sample across its answers with the cursor headers echoed and the
// cursor its rule took from the last message filled in (URL and header); pull's
// interval; ws's `send` after the 101; SSE's Last-Event-ID on a reconnection; a held stream requested again
// after a refusal; and every open subscription ended by the engine at the duration, ok, "end of test".

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static pushbench.jmeter.ChunkedServer.END;
import static pushbench.jmeter.ChunkedServer.chunk;
import static pushbench.jmeter.ChunkedServer.chunkedHead;
import static pushbench.jmeter.ChunkedServer.pause;
import static pushbench.jmeter.ChunkedServer.write;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MuxTargetTest {
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

  // A config of a target run of this spec subscribe part, `connections` connections for durationMs.
  private static MuxConfig config(String transport, String subscribe, int connections, long durationMs) {
    MuxConfig c = new MuxConfig();
    c.target(TargetSpec.parse(TargetSpecTest.spec(transport, subscribe, "").replace("\"channels\":10", "\"channels\":2")));
    c.connections = connections;
    c.durationMs = durationMs;
    c.responseTimeoutMs = 10_000;
    c.connectTimeoutMs = 5_000;
    return c;
  }

  private String url(String path) {
    return "http://127.0.0.1:" + server.port() + path;
  }

  private List<MuxEngine.Interval> runOne(MuxConfig c) throws IOException {
    return MuxEngineTest.run(new MuxEngine(c, 0, 1, MuxEngineTest.mono(), log));
  }

  private static String header(String request, String name) {
    return WsServer.header(request, name);
  }

  private static void endedByTheEngine(String[] e) {
    assertEquals("1", e[4], "ok");
    assertEquals(MuxEngine.END_OF_TEST, e[9]);
    assertEquals("", e[10], "no failure");
  }

  @Test
  void aStreamCarriesTheSpecsRequestItsLinesAreMessagesAndTheEngineEndsItAtTheDuration() throws Exception {
    server.answer(chunkedHead(200, "OK", "text/plain"), chunk("{\"seq\":1,\"error\":\"no\"}\n{\"se"), pause(60),
        chunk("q\":2}\r\n{\"seq\":3,\"tim"), pause(3000), END);
    MuxConfig c = config("stream", "{\"url\":\"" + url("/stream/{{channel}}?c={{client}}") + "\","
        + "\"headers\":[[\"X-Client\",\"{{client}}-{{pad:2}}\"]]}", 1, 600);
    long start = MuxEngineTest.mono();
    List<MuxEngine.Interval> ivs = runOne(c);
    long took = MuxEngineTest.mono() - start;
    assertTrue(took >= 590 && took < 1500, "ended by the engine at its duration: " + took + " ms");
    assertEquals(0, MuxEngineTest.sum(ivs, iv -> iv.errors), "\"error\" in a message is a message");
    String request = server.requests.get(0);
    assertTrue(request.startsWith("GET /stream/run1-e1-0?c=0 HTTP/1.1\r\nHost: 127.0.0.1:" + server.port() + "\r\n"), request);
    assertEquals("0-xx", header(request, "X-Client"));
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of("{\"seq\":1,\"error\":\"no\"}", "{\"seq\":2}"), Logs.records(lines));
    String[] b = Logs.kind(lines, "B").get(0);
    assertEquals("Request 1-1", b[3]);
    assertEquals("request", b[4]);
    String[] e = Logs.kind(lines, "E").get(0);
    endedByTheEngine(e);
    assertEquals("200", e[3]);
    assertEquals("2", e[5], "records");
    assertEquals(String.valueOf("{\"seq\":3,\"tim".length()), e[7], "what was read of the third message is cut");
    long headers = Long.parseLong(e[11]);
    assertTrue(headers > 0 && headers <= Long.parseLong(Logs.kind(lines, "R").get(0)[1]), "subscribed from its head");
  }

  @Test
  void connectionsAreSpreadOverTheChannels() throws Exception {
    for (int i = 0; i < 3; i++) server.answer(chunkedHead(200, "OK", "text/plain"), pause(2000), END);
    runOne(config("stream", "{\"url\":\"" + url("/s/{{channel}}?c={{client}}") + "\"}", 3, 300));
    Set<String> lines = new TreeSet<>();
    for (String r : server.requests) lines.add(r.substring(0, r.indexOf("\r\n")));
    assertEquals(Set.of("GET /s/run1-e1-0?c=0 HTTP/1.1", "GET /s/run1-e1-1?c=1 HTTP/1.1", "GET /s/run1-e1-0?c=2 HTTP/1.1"), lines,
        "connection i on channel i mod 2");
    assertEquals(3, Logs.kind(Logs.closedLines(dir), "E").stream().filter(e -> e[9].equals(MuxEngine.END_OF_TEST)).count());
  }

  @Test
  void chunkFramingMakesEachChunkAMessageWrittenOnOneLine() throws Exception {
    server.answer(chunkedHead(200, "OK", "application/json"), chunk("{\"seq\":1,\n\t\"a\":2}"), pause(40), chunk("{\"seq\":2}"),
        pause(3000), END);
    runOne(config("stream", "{\"url\":\"" + url("/c") + "\",\"framing\":{\"kind\":\"chunk\"}}", 1, 400));
    assertEquals(List.of("{\"seq\":1,  \"a\":2}", "{\"seq\":2}"), Logs.records(Logs.closedLines(dir)),
        "a message's line end and tab are written as spaces");
  }

  @Test
  void aRefusedStreamFailsAndIsRequestedAgainAfterTheReconnectionTime() throws Exception {
    server.answer(write("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nno error!"));
    server.answer(chunkedHead(200, "OK", "text/plain"), chunk("m1\n"), END);
    server.answer(chunkedHead(200, "OK", "text/plain"), chunk("m2\n"), pause(3000), END);
    MuxConfig c = config("stream", "{\"url\":\"" + url("/s") + "\"}", 1, 1200);
    c.wsRetryMs = 200;
    List<MuxEngine.Interval> ivs = runOne(c);
    assertEquals(3, MuxEngineTest.sum(ivs, iv -> iv.answers));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.errors));
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of("no error!", "m1", "m2"), Logs.records(lines), "a refusal's body is read as lines too");
    List<String[]> ends = Logs.kind(lines, "E");
    assertEquals("HTTP status 404 Not Found", ends.get(0)[10]);
    assertEquals("1", ends.get(1)[4], "a stream the server ended is an ok answer");
    endedByTheEngine(ends.get(2));
    List<String[]> begins = Logs.kind(lines, "B");
    for (int k = 1; k < 3; k++) {
      long waited = Long.parseLong(begins.get(k)[1]) - Long.parseLong(ends.get(k - 1)[1]);
      assertTrue(waited >= 190_000 && waited < 800_000, "asked again after 200 ms: " + waited + " µs");
    }
  }

  private static String answer(String status, String headers, String body) {
    return "HTTP/1.1 " + status + "\r\n" + headers + (body == null ? "" : "Content-Length: " + body.length() + "\r\n") + "\r\n"
        + (body == null ? "" : body);
  }

  @Test
  void aPollSubscriptionIsOneSampleAcrossItsAnswersAndEchoesTheCursor() throws Exception {
    server.answer(write(answer("200 OK", "Last-Modified: A\r\nEtag: 1\r\n", "{\"seq\":1}")));
    server.answer(write(answer("304 Not Modified", "Last-Modified: A\r\nEtag: 1\r\n", null)));
    server.answer(write(answer("200 OK", "Last-Modified: B\r\nETAG: 2\r\n", "{\"seq\":2}\n{\"seq\":3}")));
    server.answer(write(answer("200 OK", "", "")));
    server.answer(pause(3000));
    MuxConfig c = config("poll", "{\"url\":\"" + url("/lp/{{channel}}") + "\","
        + "\"cursor\":[[\"Last-Modified\",\"If-Modified-Since\"],[\"Etag\",\"If-None-Match\"]]}", 1, 700);
    List<MuxEngine.Interval> ivs = runOne(c);
    assertEquals(5, server.requests.size());
    assertEquals(1, server.connections.get(), "asked again on the kept-alive connection");
    assertNull(header(server.requests.get(0), "If-Modified-Since"), "the first ask has no cursor");
    assertEquals("A", header(server.requests.get(1), "If-Modified-Since"));
    assertEquals("1", header(server.requests.get(1), "If-None-Match"));
    assertEquals("A", header(server.requests.get(2), "If-Modified-Since"), "a 304 carried the same cursor");
    assertEquals("B", header(server.requests.get(3), "If-Modified-Since"));
    assertEquals("2", header(server.requests.get(3), "If-None-Match"), "header names in any case");
    assertEquals("B", header(server.requests.get(4), "If-Modified-Since"), "an answer without the headers keeps the cursor");
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.answers), "one subscription");
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(1, Logs.kind(lines, "B").size());
    assertEquals(List.of("{\"seq\":1}", "{\"seq\":2} {\"seq\":3}"), Logs.records(lines),
        "each answer's whole body is one message; a 304 and an empty body none");
    String[] e = Logs.kind(lines, "E").get(0);
    endedByTheEngine(e);
    assertEquals("2", e[5], "records of every answer");
    assertEquals(String.valueOf(9 + 19), e[6], "body bytes of every answer");
    long headers = Long.parseLong(e[11]);
    assertTrue(headers > 0 && headers <= Long.parseLong(Logs.kind(lines, "R").get(0)[1]), "subscribed from the first answer's head");
  }

  @Test
  void aPollCarriesTheCursorItsRuleTookFromItsLastMessageInTheUrlAndAHeader() throws Exception {
    server.answer(write(answer("200 OK", "", "{\"seq\":1,\"next\":\"c1\"}")));
    server.answer(write(answer("200 OK", "", "{\"ping\":1}")));
    server.answer(write(answer("200 OK", "", "{\"seq\":2,\"next\":\"2 x/&\"}")));
    server.answer(pause(3000));
    MuxConfig c = config("poll", "{\"url\":\"" + url("/lp/{{channel}}?since={{cursor}}") + "\",\"headers\":[[\"X-Since\",\"{{cursor}}\"]],"
        + "\"cursorMessage\":{\"rule\":\"/next\",\"initial\":\"0\"}}", 1, 700);
    runOne(c);
    assertEquals(4, server.requests.size());
    String[] want = {"0", "c1", "c1", "2%20x%2F%26"};
    String[] header = {"0", "c1", "c1", "2 x/&"};
    for (int k = 0; k < 4; k++) {
      String r = server.requests.get(k);
      assertEquals("GET /lp/run1-e1-0?since=" + want[k] + " HTTP/1.1", r.substring(0, r.indexOf("\r\n")),
          k == 0 ? "the initial value before the first message" : k == 2 ? "a message the rule does not match keeps the cursor" : "the last message's");
      assertEquals(header[k], header(r, "X-Since"), "in a header as is");
    }
    assertEquals(3, Logs.records(Logs.closedLines(dir)).size(), "every answer's body is still a message");
  }

  @Test
  void pullAsksAgainAfterItsInterval() throws Exception {
    Queue<Long> played = new ConcurrentLinkedQueue<>();
    ChunkedServer.Step stamp = (out, s) -> played.add(System.nanoTime());
    for (int i = 1; i <= 3; i++) server.answer(stamp, write(answer("200 OK", "", "{\"seq\":" + i + "}")));
    server.answer(stamp, pause(3000));
    MuxConfig c = config("pull", "{\"url\":\"" + url("/p/{{channel}}") + "\"}", 1, 600);
    assertEquals(100, c.pullIntervalMs, "the spec's interval");
    runOne(c);
    Long[] t = played.toArray(new Long[0]);
    assertEquals(4, t.length);
    for (int k = 1; k < t.length; k++) {
      long ms = (t[k] - t[k - 1]) / 1_000_000;
      assertTrue(ms >= 95 && ms < 400, "asked again 100 ms after the answer: " + ms + " ms");
    }
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of("{\"seq\":1}", "{\"seq\":2}", "{\"seq\":3}"), Logs.records(lines));
    assertEquals(1, Logs.kind(lines, "E").size());
  }

  @Test
  void anSseStreamIsAskedForWithTheUsersHeadersAndResumesWithTheLastEventId() throws Exception {
    server.answer(chunkedHead(200, "OK", "text/event-stream"), chunk("retry: 100\nid: 7\ndata: {\"seq\":1}\n\n"), END);
    server.answer(chunkedHead(200, "OK", "text/event-stream"), chunk("id: 8\ndata: {\"seq\":2}\ndata: error\n\n"), pause(3000), END);
    MuxConfig c = config("sse", "{\"url\":\"" + url("/sse/{{channel}}") + "\",\"headers\":[[\"Authorization\",\"Bearer t-{{client}}\"]]}", 1, 700);
    List<MuxEngine.Interval> ivs = runOne(c);
    assertEquals(0, MuxEngineTest.sum(ivs, iv -> iv.errors));
    assertEquals("text/event-stream", header(server.requests.get(0), "Accept"));
    assertEquals("Bearer t-0", header(server.requests.get(0), "Authorization"));
    assertNull(header(server.requests.get(0), "Last-Event-ID"));
    assertEquals("7", header(server.requests.get(1), "Last-Event-ID"));
    assertEquals("Bearer t-0", header(server.requests.get(1), "Authorization"));
    List<String[]> lines = Logs.closedLines(dir);
    assertEquals(List.of("{\"seq\":1}", "{\"seq\":2} error"), Logs.records(lines));
    endedByTheEngine(Logs.kind(lines, "E").get(1));
  }

  @Test
  void aWebSocketSubscriptionSendsTheSpecsTextAfterThe101() throws Exception {
    try (WsServer ws = new WsServer()) {
      ws.accept(WsServer.write(WsServer.text("{\"seq\":1,\"error\":true}")), WsServer.pause(30),
          WsServer.write(WsServer.text("line one\nline two")), WsServer.pause(3000));
      MuxConfig c = config("ws", "{\"url\":\"ws://127.0.0.1:" + ws.port() + "/ws/{{channel}}\","
          + "\"send\":\"{\\\"subscribe\\\":\\\"{{channel}}\\\",\\\"client\\\":{{client}}}\"}", 1, 600);
      List<MuxEngine.Interval> ivs = runOne(c);
      assertEquals(0, MuxEngineTest.sum(ivs, iv -> iv.errors));
      assertTrue(ws.requests.get(0).startsWith("GET /ws/run1-e1-0 HTTP/1.1\r\nHost: 127.0.0.1:" + ws.port() + "\r\n"), ws.requests.get(0));
      WsServer.Frame sub = ws.subscriptions.get(0);
      assertEquals("{\"subscribe\":\"run1-e1-0\",\"client\":0}", sub.text());
      assertTrue(sub.masked());
      List<String[]> lines = Logs.closedLines(dir);
      assertEquals(List.of("{\"seq\":1,\"error\":true}", "line one line two"), Logs.records(lines));
      String[] e = Logs.kind(lines, "E").get(0);
      endedByTheEngine(e);
      assertEquals("101", e[3]);
    }
  }
}
