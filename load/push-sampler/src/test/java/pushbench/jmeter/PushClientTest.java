package pushbench.jmeter;

// JUnit of the push sampler's HTTP client against a local server that scripts its bytes (ChunkedServer):
// records split across chunks, several in one chunk, a stream broken mid-record, a stalled stream
// reaching the safety timeout, a 4xx answer, a kept-alive connection reused and a stale one replaced.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static pushbench.jmeter.ChunkedServer.CLOSE;
import static pushbench.jmeter.ChunkedServer.END;
import static pushbench.jmeter.ChunkedServer.HOLD;
import static pushbench.jmeter.ChunkedServer.chunk;
import static pushbench.jmeter.ChunkedServer.chunkedHead;
import static pushbench.jmeter.ChunkedServer.lengthHead;
import static pushbench.jmeter.ChunkedServer.pause;

import java.io.EOFException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PushClientTest {
  private static final String BODY = "{\"type\":\"comet\",\"events\":[\"event1\"]}";
  private static final String NDJSON = "application/x-ndjson";

  private ChunkedServer server;
  private PushClient client;
  private final List<String> records = new ArrayList<>();
  private final List<Long> stamps = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    server = new ChunkedServer();
    client = new PushClient();
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    server.close();
  }

  private PushClient.Outcome exchange(int readTimeoutMs) {
    return client.exchange("127.0.0.1", server.port(), "POST", "/request", BODY.getBytes(StandardCharsets.UTF_8),
        "application/json", 5000, readTimeoutMs, (micros, b, off, len) -> {
          records.add(new String(b, off, len, StandardCharsets.UTF_8));
          stamps.add(micros);
        });
  }

  private static String rec(int cycle) {
    return "{\"response\":{\"event\":{\"name\":\"event1\",\"cycle\":" + cycle + "}}}";
  }

  @Test
  void recordSplitAcrossChunksArrivesWholeWhenItsLastPieceDoes() {
    String r1 = rec(1);
    server.answer(chunkedHead(200, "OK", NDJSON), chunk(r1.substring(0, 7)), pause(150),
        chunk(r1.substring(7, 20)), pause(150), chunk(r1.substring(20) + "\n"), END);
    long before = PushClient.nowMicros();
    PushClient.Outcome o = exchange(5000);
    assertNull(o.error);
    assertEquals(200, o.status);
    assertEquals(List.of(r1), records);
    assertTrue(stamps.get(0) - before >= 290_000, "stamped when its last piece arrived: " + (stamps.get(0) - before) + " µs");
    assertTrue(stamps.get(0) <= o.endMicros);
    assertEquals(1, o.records);
    assertEquals(r1.length() + 1, o.bodyBytes);
    assertTrue(server.requests.get(0).startsWith("POST /request HTTP/1.1\r\n"));
    assertTrue(server.requests.get(0).endsWith(BODY));
  }

  @Test
  void severalRecordsInOneChunkShareTheirArrival() {
    server.answer(chunkedHead(200, "OK", NDJSON), chunk(rec(1) + "\n" + rec(2) + "\n" + rec(3) + "\n"), pause(200),
        chunk(rec(4) + "\n"), END);
    PushClient.Outcome o = exchange(5000);
    assertNull(o.error);
    assertEquals(List.of(rec(1), rec(2), rec(3), rec(4)), records);
    assertEquals(stamps.get(0), stamps.get(2));
    assertTrue(stamps.get(3) - stamps.get(2) >= 190_000, "the later chunk is stamped later");
    assertEquals(rec(1) + "\n" + rec(4), new String(o.digest(), StandardCharsets.UTF_8), "first and last kept");
  }

  @Test
  void streamBrokenMidRecordKeepsWhatCameAndFails() {
    String r2 = rec(2);
    server.answer(chunkedHead(200, "OK", NDJSON), chunk(rec(1) + "\n" + r2.substring(0, 10)), pause(50), CLOSE);
    PushClient.Outcome o = exchange(5000);
    assertInstanceOf(EOFException.class, o.error);
    assertEquals(List.of(rec(1)), records);
    assertEquals(10, o.cutBytes);
    assertEquals(200, o.status);
  }

  @Test
  void stalledStreamEndsAtTheSafetyTimeout() {
    server.answer(chunkedHead(200, "OK", NDJSON), chunk(rec(1) + "\n"), HOLD);
    long t0 = System.nanoTime();
    PushClient.Outcome o = exchange(400);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertInstanceOf(SocketTimeoutException.class, o.error);
    assertEquals(List.of(rec(1)), records);
    assertTrue(ms >= 380 && ms < 3000, "ended after the 400 ms of silence: " + ms + " ms");
  }

  @Test
  void clientErrorAnswerIsReadAsItsBody() {
    String error = "{\"error\":{\"status\":400,\"message\":\"bad type\"}}";
    server.answer(lengthHead(400, "Bad Request", error, false));
    PushClient.Outcome o = exchange(5000);
    assertNull(o.error);
    assertEquals(400, o.status);
    assertEquals("Bad Request", o.reason);
    assertEquals(List.of(error), records, "a one-line answer without \\n is one record");
    assertEquals(error, new String(o.digest(), StandardCharsets.UTF_8));
  }

  @Test
  void keptAliveConnectionIsReusedAndAStaleOneReplaced() {
    String poll = rec(7);
    server.answer(lengthHead(200, "OK", poll, false));
    server.answer(lengthHead(200, "OK", poll, false), CLOSE);
    server.answer(lengthHead(200, "OK", poll, false));
    assertNull(exchange(5000).error);
    assertNull(exchange(5000).error);
    assertEquals(1, server.connections.get(), "second poll on the same connection");
    PushClient.Outcome third = exchange(5000);   // the server closed that connection: a new one, once
    assertNull(third.error);
    assertEquals(2, server.connections.get());
    assertEquals(3, records.size());
  }
}
