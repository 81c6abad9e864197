package pushbench.jmeter;

// JUnit of the engine's timed sample wired into its summaries (TripSample; docs/engine.md "Sampled trip
// time") on real sockets (127.0.0.1, ChunkedServer): a target's messages timed by extract.sentUs on the
// engine clock, a built-in comet record by its created stamp (server clock), nothing timed for a target
// without extract.sentUs, and the summary's message text lib/progress.sh reads.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static pushbench.jmeter.ChunkedServer.END;
import static pushbench.jmeter.ChunkedServer.chunk;
import static pushbench.jmeter.ChunkedServer.chunkedHead;
import static pushbench.jmeter.ChunkedServer.pause;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MuxTripTest {
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

  // A chunk written when played, its text made then: a message stamped `agoMs` before it is written.
  private static ChunkedServer.Step stamped(java.util.function.LongFunction<String> text, long agoMs, boolean micros) {
    return (out, s) -> chunk(text.apply(micros ? PushClient.nowMicros() - agoMs * 1000 : System.currentTimeMillis() - agoMs)).play(out, s);
  }

  private MuxConfig target(String extra) {
    MuxConfig c = new MuxConfig();
    c.target(TargetSpec.parse(TargetSpecTest.spec("stream", "{\"url\":\"http://127.0.0.1:" + server.port() + "/s/{{channel}}\"}", extra)));
    c.connections = 1;
    c.durationMs = 900;
    c.responseTimeoutMs = 10_000;
    c.connectTimeoutMs = 5_000;
    return c;
  }

  private List<MuxEngine.Interval> run(MuxConfig c) throws IOException {
    return MuxEngineTest.run(new MuxEngine(c, 0, 1, MuxEngineTest.mono(), log));
  }

  private static MuxEngine.Interval timed(List<MuxEngine.Interval> ivs) {
    return ivs.stream().filter(iv -> iv.tripTimed > 0).reduce((a, b) -> a.tripP99Micros >= b.tripP99Micros ? a : b).orElseThrow();
  }

  @Test
  void aTargetsMessagesAreTimedByTheirSentUsOnTheEngineClock() throws Exception {
    java.util.function.LongFunction<String> msg = us -> "{\"seq\":1,\"sentUs\":" + us + "}\n";
    server.answer(chunkedHead(200, "OK", "text/plain"), stamped(msg, 40, true), pause(50), stamped(msg, 40, true), chunk("{\"hello\":1}\n"),
        pause(50), stamped(msg, 40, true), pause(3000), END);
    List<MuxEngine.Interval> ivs = run(target(",\"extract\":{\"sentUs\":\"/sentUs\"}"));
    assertEquals(3, MuxEngineTest.sum(ivs, iv -> iv.tripTimed), "every message with a stamp (3 a second: below the budget), not the greeting");
    assertEquals(4, MuxEngineTest.sum(ivs, iv -> iv.records));
    MuxEngine.Interval iv = timed(ivs);
    assertEquals(TripSample.ENGINE_CLOCK, iv.tripBasis);
    assertTrue(iv.tripP99Micros >= 40_000 && iv.tripP99Micros < 2_000_000, "stamped 40 ms before it was written: " + iv.tripP99Micros);
    String text = MuxSampler.tripText(iv);
    assertTrue(text.matches(", trip p99 [0-9]+ us of [1-3] timed \\(engine clock\\)"), text);
  }

  @Test
  void aTargetWithoutASentUsRuleTimesNothingAndItsSummarySaysNothing() throws Exception {
    server.answer(chunkedHead(200, "OK", "text/plain"), stamped(us -> "{\"seq\":1,\"sentUs\":" + us + "}\n", 5, true), pause(3000), END);
    List<MuxEngine.Interval> ivs = run(target(""));
    assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.records));
    assertEquals(0, MuxEngineTest.sum(ivs, iv -> iv.tripTimed));
    assertEquals("", MuxSampler.tripText(ivs.get(0)));
  }

  @Test
  void aBuiltInCometRecordIsTimedByItsCreatedStampOnTheServerClock() throws Exception {
    java.util.function.LongFunction<String> rec = ms -> "{\"response\":{\"event\":{\"name\":\"event1\",\"cycle\":1,\"timings\":{\"duration\":0,\"sent\":" + ms
        + ",\"created\":" + ms + "}}}}\n";
    server.answer(chunkedHead(200, "OK", "application/x-ndjson"), stamped(rec, 30, false), pause(50), stamped(rec, 30, false), pause(3000), END);
    MuxConfig c = new MuxConfig();
    c.port = server.port();
    c.type = MuxConfig.Type.COMET;
    c.body = "{\"type\":\"comet\",\"events\":[\"event1\"]}";
    c.connections = 1;
    c.durationMs = 300;
    c.responseTimeoutMs = 10_000;
    c.connectTimeoutMs = 5_000;
    MuxEngine e = new MuxEngine(c, 0, 1, MuxEngineTest.mono(), log);
    List<MuxEngine.Interval> ivs = new java.util.ArrayList<>();
    for (int k = 0; k < 3; k++) ivs.add(e.runFor(200));   // the stream is held past the duration: three intervals read it
    e.close();
    assertEquals(2, MuxEngineTest.sum(ivs, iv -> iv.tripTimed));
    MuxEngine.Interval iv = timed(ivs);
    assertEquals(TripSample.SERVER_CLOCK, iv.tripBasis);
    assertTrue(iv.tripP99Micros >= 29_000 && iv.tripP99Micros < 2_000_000, "created 30 ms before it was written (ms stamps): " + iv.tripP99Micros);
    assertTrue(MuxSampler.tripText(iv).endsWith(" timed (server clock)"), MuxSampler.tripText(iv));
  }
}
