package pushbench.jmeter;

// JUnit of the mux engine's read coalescing (MuxConfig.coalesceMicros; docs/engine.md "Read coalescing") on
// real sockets (127.0.0.1): a stream whose server writes a record every 8 ms for longer than the test's
// duration (so it is requested once) is read whole and in order either way; with coalescing the selector
// starts at most one waiting select per coalescing interval (besides those for its timers), so it wakes
// far less often than when it selects at once.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static pushbench.jmeter.ChunkedServer.END;
import static pushbench.jmeter.ChunkedServer.chunk;
import static pushbench.jmeter.ChunkedServer.chunkedHead;
import static pushbench.jmeter.ChunkedServer.pause;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MuxCoalesceTest {
  private static final int RECORDS = 150;
  private static final long COALESCE_MICROS = 50_000;

  @TempDir Path dir;

  @AfterEach
  void close() {
    StreamLog.closeAll();
  }

  private record Run(long selects, long elapsedMs, List<String> records) {}

  // One comet stream of RECORDS records, a record every 8 ms, read by an engine coalescing coalesceMicros.
  private Run stream(long coalesceMicros, Path logDir) throws Exception {
    try (ChunkedServer server = new ChunkedServer()) {
      List<ChunkedServer.Step> steps = new ArrayList<>();
      steps.add(chunkedHead(200, "OK", "application/x-ndjson"));
      for (int i = 1; i <= RECORDS; i++) {
        steps.add(chunk(MuxEngineTest.rec(i) + "\n"));
        steps.add(pause(8));
      }
      steps.add(END);
      server.answer(steps.toArray(new ChunkedServer.Step[0]));
      MuxConfig c = new MuxConfig();
      c.port = server.port();
      c.type = MuxConfig.Type.COMET;
      c.connections = 1;
      c.durationMs = 1000;   // one request: its answer ends after the duration
      c.body = "{\"type\":\"comet\",\"events\":[\"event1\"]}";
      c.coalesceMicros = coalesceMicros;
      java.nio.file.Files.createDirectories(logDir);
      StreamLog log = StreamLog.of(logDir, 0);
      List<MuxEngine.Interval> ivs = MuxEngineTest.run(new MuxEngine(c, 0, 1, MuxEngineTest.mono(), log));
      assertEquals(1, MuxEngineTest.sum(ivs, iv -> iv.answers));
      assertEquals(0, MuxEngineTest.sum(ivs, iv -> iv.errors));
      StreamLog.closeAll();
      List<String> records = Logs.kind(Logs.closedLines(logDir), "R").stream().map(l -> l[3]).collect(Collectors.toList());
      long elapsed = ivs.get(ivs.size() - 1).endMillis - ivs.get(0).startMillis;
      return new Run(MuxEngineTest.sum(ivs, iv -> iv.selects), elapsed, records);
    }
  }

  @Test
  void coalescedReadsGetEveryRecordInOrderWithFewerWakeUps() throws Exception {
    List<String> expected = new ArrayList<>();
    for (int i = 1; i <= RECORDS; i++) expected.add(MuxEngineTest.rec(i));

    Run atOnce = stream(0, dir.resolve("at-once"));
    Run coalesced = stream(COALESCE_MICROS, dir.resolve("coalesced"));

    assertEquals(expected, atOnce.records(), "selecting at once: every record, in order");
    assertEquals(expected, coalesced.records(), "coalescing: every record, in order");
    // A waiting select starts at least COALESCE_MICROS after the previous one; selects that do not wait (a
    // timer due: the log's batch every 100 ms, the sweep every 250 ms, an interval's end every 200 ms) are
    // not held back.
    long bound = coalesced.elapsedMs() * 1000 / COALESCE_MICROS + coalesced.elapsedMs() / 40 + 5;
    assertTrue(coalesced.selects() <= bound,
        "coalesced: " + coalesced.selects() + " selects in " + coalesced.elapsedMs() + " ms, at most " + bound);
    assertTrue(atOnce.selects() > 2 * coalesced.selects(),
        "at once " + atOnce.selects() + " selects against coalesced " + coalesced.selects());
  }
}
