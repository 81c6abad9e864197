package pushbench.jmeter;

// JUnit of a target run's spec (TargetSpec; docs/targets.md "Inside") and of the framings the engine cuts a
// target's answers with (AnswerParser CHUNK, DELIMITER, WHOLE; capture of cursor headers): the docs'
// example parsed and its requests built with every placeholder filled; bad specs refused naming their key;
// chunks, delimiters and bodies split across reads down to one byte each.

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.Test;

class TargetSpecTest {
  /** The docs' example spec, its parts replaceable: a JSON object's text. */
  static String spec(String transport, String subscribe, String extra) {
    return "{\"name\":\"nchan-sse\",\"transport\":\"" + transport + "\",\"intervalMs\":" + (transport.equals("pull") ? 100 : 0) + ","
        + "\"subscribe\":" + subscribe + ","
        + "\"publish\":{\"method\":\"POST\",\"url\":\"http://127.0.0.1:18480/pub/{{channel}}\","
        + "\"headers\":[[\"Content-Type\",\"application/json\"]],"
        + "\"body\":\"{\\\"seq\\\":{{seq}},\\\"sentUs\\\":{{sentUs}},\\\"pad\\\":\\\"{{pad:4}}\\\"}\"},"
        + "\"channels\":10,\"rate\":1,\"drainMs\":2000,\"channelPrefix\":\"run1-e1-\"" + extra + "}";
  }

  static final String SSE_SUBSCRIBE = "{\"url\":\"http://127.0.0.1:18480/sub/{{channel}}?c={{client}}\","
      + "\"headers\":[[\"Accept\",\"text/event-stream\"],[\"X-Who\",\"client-{{client}}-{{pad:3}}\"]],"
      + "\"send\":null,\"framing\":{\"kind\":\"line\"},\"cursor\":[]}";

  static String base64(String json) {
    return Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void httpsAndWssUrlsAreTlsWithPort443UnlessGivenAndTheTlsKeysAreKept() {
    TargetSpec s = TargetSpec.parse(spec("ws", "{\"url\":\"wss://push.example/ws/{{channel}}\"}",
        ",\"tls\":{\"ca\":null,\"insecure\":true,\"serverName\":\"push.example\"}"));
    assertTrue(s.subscribeUrl.tls());
    assertEquals(443, s.subscribeUrl.port());
    assertTrue(!s.publishUrl.tls(), "the publish URL keeps its http://");
    assertTrue(s.tls.insecure);
    assertEquals("push.example", s.tls.serverName);
    TargetSpec h = TargetSpec.parse(spec("sse", "{\"url\":\"https://127.0.0.1:8443/sub\"}", ""));
    assertEquals(8443, h.subscribeUrl.port());
    assertTrue(!h.tls.insecure && h.tls.caPem == null && h.tls.serverName == null, "no tls key: the JDK's trust store, names checked");
    assertTrue(!TlsConfig.isHostName("127.0.0.1") && !TlsConfig.isHostName("::1") && TlsConfig.isHostName("localhost"), "SNI for host names only");
  }

  @Test
  void tokensFillEachConnectionsAndChannelsLineOfTheEnginesSliceAndNoValueIsEverInAMessage(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path file = dir.resolve("tokens.txt");
    java.nio.file.Files.writeString(file, "t-one\nt-two\nt-three\nt-four\nt-five\n");
    String subscribe = "{\"url\":\"http://127.0.0.1:18480/sub/{{channel}}\",\"headers\":[[\"Authorization\",\"Bearer {{token}}\"]]}";
    String tokens = ",\"tokens\":{\"file\":\"" + file + "\",\"first\":2,\"count\":3}";
    TargetSpec s = TargetSpec.parse(spec("sse", subscribe, tokens).replace("\"headers\":[[\"Content-Type\",\"application/json\"]]",
        "\"headers\":[[\"Cookie\",\"sid={{token}}\"]]"));
    assertTrue(new String(s.subscribeRequest(0, ""), StandardCharsets.UTF_8).contains("\r\nAuthorization: Bearer t-three\r\n"), "connection 0: line first + 1");
    assertTrue(new String(s.subscribeRequest(2, ""), StandardCharsets.UTF_8).contains("\r\nAuthorization: Bearer t-five\r\n"));
    assertTrue(new String(s.publishRequest(4, 1, 1), StandardCharsets.UTF_8).contains("\r\nCookie: sid=t-four\r\n"), "channel 4: line first + 4 mod 3 + 1");
    IllegalArgumentException shortFile = assertThrows(IllegalArgumentException.class,
        () -> TargetSpec.parse(spec("sse", subscribe, tokens.replace("\"count\":3", "\"count\":4"))));
    assertTrue(shortFile.getMessage().contains("holds 5 line(s), this engine's connections need lines 3 to 6"), shortFile.getMessage());
    java.nio.file.Files.writeString(file, "t-one\nt-two\nt-th\u0001ree\nt-four\nt-five\n");
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> TargetSpec.parse(spec("sse", subscribe, tokens)));
    assertTrue(bad.getMessage().contains("line 3 is empty or holds a control character") && !bad.getMessage().contains("t-th"), bad.getMessage());
    refused(spec("sse", subscribe, ""), "tokens: required: {{token}} is used");
  }

  @Test
  void theDocsExampleParsesAndItsRequestsCarryEveryPlaceholderFilled() {
    TargetSpec s = TargetSpec.decode(base64(spec("sse", SSE_SUBSCRIBE, "")));
    assertEquals("nchan-sse", s.name);
    assertEquals(TargetSpec.Transport.SSE, s.transport);
    assertEquals("127.0.0.1", s.subscribeUrl.host());
    assertEquals(18480, s.subscribeUrl.port());
    assertEquals(10, s.channels);
    assertEquals(1.0, s.rate);
    assertEquals(2000, s.drainMs);
    assertEquals("run1-e1-3", s.channel(3));
    assertEquals(3, s.channelOf(13), "connection i on channel i mod channels");
    String sub = new String(s.subscribeRequest(13, "Last-Event-ID: 7\r\n"), StandardCharsets.UTF_8);
    assertEquals("GET /sub/run1-e1-3?c=13 HTTP/1.1\r\nHost: 127.0.0.1:18480\r\nAccept: text/event-stream\r\n"
        + "X-Who: client-13-xxx\r\nLast-Event-ID: 7\r\n\r\n", sub, "the user's Accept, not a second one");
    String pub = new String(s.publishRequest(4, 17, 1_700_000_000_123_456L), StandardCharsets.UTF_8);
    String body = "{\"seq\":17,\"sentUs\":1700000000123456,\"pad\":\"xxxx\"}";
    assertEquals("POST /pub/run1-e1-4 HTTP/1.1\r\nHost: 127.0.0.1:18480\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + body.length() + "\r\n\r\n" + body, pub);
  }

  @Test
  void sseWithoutAnAcceptAsksForAnEventStreamAndWsSendsItsText() {
    TargetSpec sse = TargetSpec.parse(spec("sse", "{\"url\":\"http://h/s\"}", ""));
    assertEquals(80, sse.subscribeUrl.port(), "the port defaults to 80");
    assertEquals("GET /s HTTP/1.1\r\nHost: h\r\nAccept: text/event-stream\r\n\r\n",
        new String(sse.subscribeRequest(0, ""), StandardCharsets.UTF_8));
    TargetSpec ws = TargetSpec.parse(spec("ws", "{\"url\":\"ws://127.0.0.1:9/ws\",\"send\":\"{\\\"sub\\\":\\\"{{channel}}\\\",\\\"me\\\":{{client}}}\"}", ""));
    assertEquals("{\"sub\":\"run1-e1-2\",\"me\":12}", new String(ws.sendText(12), StandardCharsets.UTF_8));
    assertNull(sse.sendText(0));
  }

  @Test
  void streamFramingAndPollCursorAreRead() {
    TargetSpec d = TargetSpec.parse(spec("stream", "{\"url\":\"http://h:1/x\",\"framing\":{\"kind\":\"delimiter\",\"text\":\"||\"}}", ""));
    assertEquals(TargetSpec.Framing.DELIMITER, d.framing);
    assertArrayEquals("||".getBytes(StandardCharsets.UTF_8), d.delimiter);
    assertEquals(TargetSpec.Framing.CHUNK, TargetSpec.parse(spec("stream", "{\"url\":\"http://h:1/x\",\"framing\":{\"kind\":\"chunk\"}}", "")).framing);
    TargetSpec p = TargetSpec.parse(spec("pull", "{\"url\":\"http://h:1/lp/{{channel}}\",\"cursor\":[[\"Last-Modified\",\"If-Modified-Since\"],[\"Etag\",\"If-None-Match\"]]}", ""));
    assertEquals(100, p.intervalMs);
    assertArrayEquals(new String[] {"Last-Modified", "Etag"}, p.cursorFrom);
    assertArrayEquals(new String[] {"If-Modified-Since", "If-None-Match"}, p.cursorTo);
  }

  @Test
  void aJsonTextClosingNestedObjectsRightAfterAPlaceholderIsNoUnclosedPlaceholder() {
    TargetSpec s = TargetSpec.parse(spec("ws", "{\"url\":\"ws://h/x\",\"send\":\"{\\\"sub\\\":{\\\"ch\\\":{{client}}}}\"}", ""));
    assertTrue(s.subscribeUrl.port() == 80);
  }

  @Test
  void aCursorFromTheLastMessageFillsTheUrlPercentEncodedAndHeadersAsIsInitialBeforeTheFirst() {
    String subscribe = "{\"url\":\"http://127.0.0.1:18480/lp/{{channel}}?since={{cursor}}\","
        + "\"headers\":[[\"X-Since\",\"{{cursor}}\"]],\"cursor\":[[\"Etag\",\"If-None-Match\"]],"
        + "\"cursorMessage\":{\"rule\":\"/next\",\"initial\":\"0:0\"}}";
    TargetSpec s = TargetSpec.parse(spec("poll", subscribe, ""));
    assertEquals("/next", s.cursorRule.text);
    String first = new String(s.subscribeRequest(3, ""), StandardCharsets.UTF_8);
    assertTrue(first.startsWith("GET /lp/run1-e1-3?since=0%3A0 HTTP/1.1\r\n"), first);
    assertTrue(first.contains("\r\nX-Since: 0:0\r\n"), first);
    byte[] msg = "{\"data\":\"m\",\"next\":\"1700000000:4 é/&\"}".getBytes(StandardCharsets.UTF_8);
    String cursor = s.cursorOf(msg, 0, msg.length);
    assertEquals("1700000000:4 é/&", cursor);
    String next = new String(s.subscribeRequest(3, "If-None-Match: 4\r\n", cursor), StandardCharsets.UTF_8);
    assertTrue(next.startsWith("GET /lp/run1-e1-3?since=1700000000%3A4%20%C3%A9%2F%26 HTTP/1.1\r\n"), next);
    assertTrue(next.contains("\r\nX-Since: 1700000000:4 é/&\r\nIf-None-Match: 4\r\n\r\n"), next);
    byte[] keepAlive = "{\"ping\":1}".getBytes(StandardCharsets.UTF_8);
    assertNull(s.cursorOf(keepAlive, 0, keepAlive.length), "no match: the connection keeps its cursor");
    byte[] injected = "{\"next\":\"1\\r\\nX-Evil: 1\"}".getBytes(StandardCharsets.UTF_8);
    assertNull(s.cursorOf(injected, 0, injected.length), "a value with a control character is not taken");
    TargetSpec noInitial = TargetSpec.parse(spec("pull", subscribe.replace(",\"initial\":\"0:0\"", "").replace("/next", "next=([0-9]+)"), ""));
    assertTrue(new String(noInitial.subscribeRequest(0, ""), StandardCharsets.UTF_8).startsWith("GET /lp/run1-e1-0?since= HTTP/1.1"),
        "before the first message, without initial: empty");
    byte[] line = "seq=3 next=99".getBytes(StandardCharsets.UTF_8);
    assertEquals("99", noInitial.cursorOf(line, 0, line.length));
    assertNull(TargetSpec.parse(spec("poll", "{\"url\":\"http://h/lp\"}", "")).cursorOf(line, 0, line.length), "no rule: nothing taken");
    refused(spec("poll", "{\"url\":\"http://h/lp?c={{cursor}}\"}", ""), "subscribe.cursorMessage: required: {{cursor}} is used");
    refused(spec("poll", "{\"url\":\"http://h/lp\",\"cursorMessage\":{\"rule\":\"/id\"}}", ""), "subscribe.cursorMessage: no {{cursor}}");
    refused(spec("sse", "{\"url\":\"http://h/s?c={{cursor}}\",\"cursorMessage\":{\"rule\":\"/id\"}}", ""),
        "subscribe.cursorMessage: only for transports poll and pull");
    refused(spec("poll", "{\"url\":\"http://h/lp?c={{cursor}}\",\"cursorMessage\":{\"rule\":\"id=[0-9]+\"}}", ""),
        "subscribe.cursorMessage.rule: a regular expression needs exactly one capture group");
    refused(spec("poll", "{\"url\":\"http://h/lp?c={{cursor}}\",\"cursorMessage\":{\"rule\":\"/id\",\"initial\":\"a\\nb\"}}", ""),
        "subscribe.cursorMessage.initial: must hold no control character");
    refused(spec("poll", "{\"url\":\"http://h/lp?c={{cursor}}\",\"cursorMessage\":{\"rule\":\"/id\",\"from\":1}}", ""),
        "subscribe.cursorMessage.from: unknown key");
    refused(spec("poll", SSE_SUBSCRIBE, "").replace("\"body\":\"{", "\"body\":\"{{cursor}}{"), "publish.body: unknown placeholder {{cursor}}");
  }

  @Test
  void theSpecsSentUsRuleIsTheTimedSamplesAndOnlyItIsTaken() {
    assertNull(TargetSpec.parse(spec("sse", SSE_SUBSCRIBE, "")).sentUsRule, "no extract: no rule");
    assertNull(TargetSpec.parse(spec("sse", SSE_SUBSCRIBE, ",\"extract\":{\"sentUs\":null}")).sentUsRule);
    assertEquals("/sentUs", TargetSpec.parse(spec("sse", SSE_SUBSCRIBE, ",\"extract\":{\"sentUs\":\"/sentUs\"}")).sentUsRule.text);
    refused(spec("sse", SSE_SUBSCRIBE, ",\"extract\":{\"seq\":\"/seq\"}"), "extract.seq: unknown key");
    refused(spec("sse", SSE_SUBSCRIBE, ",\"extract\":{\"sentUs\":\"(a)(b)\"}"), "extract.sentUs: a regular expression needs exactly one capture group");
  }

  private static void refused(String json, String expected) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TargetSpec.parse(json));
    assertTrue(e.getMessage().startsWith("target.spec: "), e.getMessage());
    assertTrue(e.getMessage().contains(expected), "'" + e.getMessage() + "' should contain '" + expected + "'");
  }

  @Test
  void badSpecsAreRefusedNamingTheirKey() {
    refused("{", "not JSON");
    refused("[1]", "not a JSON object");
    refused(spec("sse", SSE_SUBSCRIBE, ",\"extra\":1"), "extra: unknown key");
    refused(spec("sse", "{\"url\":\"http://h/x\",\"method\":\"GET\"}", ""), "subscribe.method: unknown key");
    refused(spec("smoke", SSE_SUBSCRIBE, ""), "transport: must be sse, ws, stream, poll or pull");
    refused(spec("sse", "{\"url\":\"wss://h/x\"}", ""), "subscribe.url: must be a http:// or https:// URL");
    refused(spec("ws", "{\"url\":\"https://h/x\"}", ""), "subscribe.url: must be a ws:// or wss:// URL");
    refused(spec("sse", SSE_SUBSCRIBE, ",\"tls\":{\"cafile\":\"x\"}"), "tls.cafile: unknown key");
    refused(spec("sse", SSE_SUBSCRIBE, ",\"tls\":{\"ca\":\"not pem\"}"), "tls.ca: must be PEM text");
    refused(spec("sse", SSE_SUBSCRIBE, ",\"tls\":{\"insecure\":\"yes\"}"), "tls.insecure: must be true or false");
    refused(spec("sse", SSE_SUBSCRIBE, ",\"tls\":{\"serverName\":\"a b\"}"), "tls.serverName: must be a host name");
    refused(spec("ws", "{\"url\":\"http://h/x\"}", ""), "subscribe.url: must be a ws:// or wss:// URL, got");
    refused(spec("sse", "{\"url\":\"http://h/{{seq}}\"}", ""), "subscribe.url: unknown placeholder {{seq}}");
    refused(spec("sse", "{\"url\":\"http://h/x\",\"headers\":[[\"X\",\"{{sentUs}}\"]]}", ""), "subscribe.headers.X: unknown placeholder {{sentUs}}");
    refused(spec("sse", "{\"url\":\"http://h/{{pad:2000000}}\"}", ""), "{{pad:N}} needs N from 0 to 1048576");
    refused(spec("sse", "{\"url\":\"http://h/{{pad}}\"}", ""), "unknown placeholder {{pad}}");
    refused(spec("sse", "{\"url\":\"http://h/{{channel}\"}", ""), "an unclosed placeholder");
    refused(spec("sse", "{\"url\":\"http://{{channel}}/x\"}", ""), "needs a host");
    refused(spec("sse", "{\"url\":\"http://h:99999/x\"}", ""), "bad port");
    refused(spec("sse", "{\"url\":\"http://h/x\",\"headers\":[[\"Host\",\"y\"]]}", ""), "subscribe.headers.Host: set by the engine itself");
    refused(spec("sse", "{\"url\":\"http://h/x\",\"framing\":{\"kind\":\"chunk\"}}", ""), "subscribe.framing: only for transport stream");
    refused(spec("sse", "{\"url\":\"http://h/x\",\"send\":\"hi\"}", ""), "subscribe.send: only for transport ws");
    refused(spec("stream", "{\"url\":\"http://h/x\",\"cursor\":[[\"Etag\",\"If-None-Match\"]]}", ""), "subscribe.cursor: only for transports poll and pull");
    refused(spec("sse", SSE_SUBSCRIBE, "").replace("\"channels\":10", "\"channels\":0"), "channels: must be from 1 to 100000");
    refused(spec("sse", SSE_SUBSCRIBE, "").replace("\"rate\":1", "\"rate\":\"1\""), "rate: must be a number");
    refused(spec("sse", SSE_SUBSCRIBE, "").replace("{{seq}}", "7"), "publish.body: must carry {{seq}}");
    refused(spec("sse", SSE_SUBSCRIBE, "").replace("\"method\":\"POST\"", "\"method\":\"GET\""), "publish.method: must be POST or PUT");
    refused(spec("pull", SSE_SUBSCRIBE, "").replace("\"intervalMs\":100", "\"intervalMs\":0"), "intervalMs: transport pull needs");
    refused(spec("sse", SSE_SUBSCRIBE, "").replace("run1-e1-", "run 1"), "channelPrefix: letters, digits");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TargetSpec.decode("not base64!"));
    assertTrue(e.getMessage().startsWith("target.spec: not base64"), e.getMessage());
  }

  // ---- framing ------------------------------------------------------------------------------------------

  private static final class Collect implements PushClient.RecordSink {
    final List<String> records = new ArrayList<>();

    @Override
    public void record(long micros, byte[] b, int off, int len) {
      records.add(new String(b, off, len, StandardCharsets.UTF_8));
    }
  }

  // Feeds an answer in pieces of `step` bytes (0: whole) to a parser with this framing; the records.
  private static List<String> cut(String answer, int framing, String delimiter, int step) throws Exception {
    AnswerParser p = new AnswerParser(false);
    Collect sink = new Collect();
    p.start(sink, false);
    p.frame(framing, delimiter == null ? null : delimiter.getBytes(StandardCharsets.UTF_8));
    byte[] b = answer.getBytes(StandardCharsets.UTF_8);
    int n = step <= 0 ? b.length : step;
    for (int i = 0; i < b.length && !p.done(); i += n) p.feed(b, i, Math.min(n, b.length - i), i);
    if (!p.done()) p.endOfInput(b.length);
    assertEquals(sink.records.size(), p.records);
    return sink.records;
  }

  private static String chunked(String... chunks) {
    StringBuilder s = new StringBuilder("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (String c : chunks) s.append(Integer.toHexString(c.getBytes(StandardCharsets.UTF_8).length)).append("\r\n").append(c).append("\r\n");
    return s.append("0\r\n\r\n").toString();
  }

  @Test
  void chunkFramingGivesOneMessagePerChunkWhateverTheReads() throws Exception {
    String answer = chunked("{\"seq\":1}\n", "two\nlines", "{\"seq\":3}");
    for (int step : new int[] {0, 1, 2, 7, 30}) {
      assertEquals(List.of("{\"seq\":1}\n", "two\nlines", "{\"seq\":3}"), cut(answer, AnswerParser.CHUNK, null, step), "reads of " + step);
    }
    String length = "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\na\nb\nc\r\n";
    assertEquals(List.of("a\nb\nc\r\n"), cut(length, AnswerParser.CHUNK, null, 3), "a body not chunked is one message");
  }

  @Test
  void delimiterFramingFindsADelimiterSplitAcrossReadsAndChunks() throws Exception {
    String answer = chunked("m1<|>m", "2<", "|", ">", "<|><|>m3<", "|>m4");   // empty pieces skipped; m4 ends with the body
    for (int step : new int[] {0, 1, 2, 3, 5, 11}) {
      assertEquals(List.of("m1", "m2", "m3", "m4"), cut(answer, AnswerParser.DELIMITER, "<|>", step), "reads of " + step);
    }
    assertEquals(List.of("a", "b<|c", "d"), cut(chunked("a<|>b<|c<|>d<|>"), AnswerParser.DELIMITER, "<|>", 1), "a partial delimiter is text");
    assertEquals(List.of("a", "b"), cut(chunked("a\n\nb\n\n"), AnswerParser.DELIMITER, "\n\n", 1));
  }

  @Test
  void lineFramingIsTheDefaultCutAndWholeMakesTheBodyOneMessage() throws Exception {
    assertEquals(List.of("a", "b", "c"), cut(chunked("a\r\nb\n", "\nc"), AnswerParser.LINES, null, 1));
    String poll = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n{\"a\":\n\t\"b\"}\n";
    assertEquals(List.of("{\"a\":\n\t\"b\"}\n"), cut(poll, AnswerParser.WHOLE, null, 0));
    assertEquals(List.of("{\"a\":\n\t\"b\"}\n"), cut(poll, AnswerParser.WHOLE, null, 1));
    assertEquals(List.of("xyz"), cut(chunked("x", "yz"), AnswerParser.WHOLE, null, 2));
    assertEquals(List.of(), cut("HTTP/1.1 304 Not Modified\r\nEtag: 1\r\n\r\n", AnswerParser.WHOLE, null, 0), "a 304 is no message");
    assertEquals(List.of(), cut("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", AnswerParser.WHOLE, null, 0), "an empty body is none");
  }

  @Test
  void capturedHeadersAreThisAnswersOnly() throws Exception {
    AnswerParser p = new AnswerParser(false);
    p.start(null, false);
    p.capture(new String[] {"last-modified", "etag"});
    byte[] a = "HTTP/1.1 200 OK\r\nLAST-MODIFIED:  Sat, 28 Nov 2026 01:00:00 GMT \r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
    p.feed(a, 0, a.length, 1);
    assertTrue(p.done());
    assertArrayEquals(new String[] {"Sat, 28 Nov 2026 01:00:00 GMT", null}, p.captured);
  }
}
