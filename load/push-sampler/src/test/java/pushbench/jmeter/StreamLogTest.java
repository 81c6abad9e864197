package pushbench.jmeter;

// JUnit of the stream log's queue and writer, with either codec where the codec matters: lines of many
// producer threads (own batches and the shared one, oversize lines among them) all present and whole after
// closeAll, as push-<n>.tsv.gz and no .lz4 left; rotation between chunks only, each file a whole gzip; a
// gzip log never closed (a killed engine) readable up to its last sync-flush; a write failure kept, later
// lines dropped and counted. The LZ4 codec's own cases: StreamLogLz4Test.

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StreamLogTest {
  @TempDir Path dir;

  @AfterEach
  void close() {
    StreamLog.closeAll();
  }

  // A record of n bytes that names its sample and place: incompressible enough to move the gzip counter.
  private static byte[] record(long id, int place, int n, Random random) {
    StringBuilder b = new StringBuilder(n).append("{\"id\":").append(id).append(",\"r\":").append(place).append(",\"x\":\"");
    while (b.length() < n - 2) b.append((char) ('a' + random.nextInt(26)));
    return b.append("\"}").toString().getBytes(StandardCharsets.UTF_8);
  }

  // One producer: samples of B, records, E through its own batch (or the log's shared methods).
  private static void produce(StreamLog log, int thread, int samples, boolean shared) {
    Random random = new Random(thread);
    StreamLog.Batch batch = log.batch();
    for (int s = 0; s < samples; s++) {
      long id = log.nextSampleId();
      int records = random.nextInt(4);
      if (shared) log.begin(1000 + s, id, "Shared 1-" + thread, "request");
      else batch.begin(1000 + s, id, "Request 1-", thread, "request");
      for (int r = 0; r < records; r++) {
        int size = s % 97 == 5 && r == 0 ? 70_000 + random.nextInt(10_000) : 50 + random.nextInt(600);   // some oversize
        byte[] rec = record(id, r, size, random);
        if (shared) log.record(2000 + r, id, rec, 0, rec.length); else batch.record(2000 + r, id, rec, 0, rec.length);
      }
      if (shared) log.end(3000, id, "200", true, records, 0, 0, 1500, "OK");
      else batch.end(3000, id, "200", true, records, 0, 0, 1500, "OK", s % 2 == 0 ? "" : "Test failed: x", 1600);
      if (!shared && random.nextInt(10) == 0) batch.submit();
    }
    if (!shared) batch.submit();
  }

  @ParameterizedTest
  @EnumSource(StreamLog.Codec.class)
  void linesOfManyThreadsAreAllPresentAndWholeAfterCloseAll(StreamLog.Codec codec) throws Exception {
    StreamLog log = StreamLog.of(dir, 0, codec);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      int thread = t;
      threads.add(new Thread(() -> produce(log, thread, 3000, thread >= 6)));
    }
    for (Thread t : threads) t.start();
    for (Thread t : threads) t.join();
    StreamLog.closeAll();
    assertEquals(0, log.dropped());
    assertEquals(List.of(), Logs.lz4Files(dir), "every .lz4 recoded at the close");
    List<String[]> lines = Logs.lines(dir);
    Map<String, List<String[]>> samples = Logs.bySample(lines);
    assertEquals(8 * 3000, samples.size());
    for (Map.Entry<String, List<String[]>> e : samples.entrySet()) {
      List<String[]> s = e.getValue();
      assertEquals("B", s.get(0)[0]);
      boolean shared = s.get(0)[3].startsWith("Shared");
      String[] end = s.get(s.size() - 1);
      assertEquals("E", end[0]);
      assertEquals(shared ? 10 : 12, end.length, "10 fields from the shared methods, 12 with failure and headers µs");
      int records = Integer.parseInt(end[5]);
      assertEquals(records + 2, s.size(), "every record of sample " + e.getKey());
      for (int r = 0; r < records; r++) {
        String[] rec = s.get(1 + r);
        assertEquals("R", rec[0]);
        assertEquals(4, rec.length);
        assertTrue(rec[3].startsWith("{\"id\":" + e.getKey() + ",\"r\":" + r + ",") && rec[3].endsWith("\"}"), "whole record");
      }
    }
  }

  @ParameterizedTest
  @EnumSource(StreamLog.Codec.class)
  void rotationHappensBetweenChunksAndEachFileIsWhole(StreamLog.Codec codec) throws Exception {
    StreamLog log = StreamLog.of(dir, 32 * 1024, codec);
    produce(log, 1, 600, false);
    StreamLog.closeAll();
    assertEquals(List.of(), Logs.lz4Files(dir), "every .lz4 recoded at the close");
    List<Path> files = Logs.files(dir);
    assertTrue(files.size() >= 3, "rotated: " + files);
    int samples = 0;
    for (Path f : files) {
      List<String[]> lines = Logs.lines(f, false);   // a whole gzip: read to its trailer without error
      assertTrue(!lines.isEmpty());
      for (String[] l : lines) {
        assertTrue(Arrays.asList("B", "R", "E").contains(l[0]), "whole lines only");
        if (l[0].equals("E")) samples++;
      }
    }
    assertEquals(600, samples);
    assertEquals(600, Logs.bySample(Logs.lines(dir)).size());
  }

  @Test
  void aSelectorBatchIsSubmittedWhenHalfFullOrOldAndNeverLoses() throws Exception {
    StreamLog log = StreamLog.of(dir, 0);
    StreamLog.Batch batch = log.batch();
    assertFalse(batch.submitIfDue(1000), "nothing held: nothing to submit");
    batch.begin(1, 1, "T", "label");
    if (StreamLog.DUE_EVERY_MS > 0) {
      assertFalse(batch.submitIfDue(1000), "a few bytes, just seen: held");
      assertFalse(batch.submitIfDue(1000 + StreamLog.DUE_EVERY_MS - 1), "younger than DUE_EVERY_MS: held");
      assertEquals(1000 + StreamLog.DUE_EVERY_MS, batch.dueAtMs(), "due DUE_EVERY_MS after first seen: the selector wakes by then");
    } else {
      assertEquals(Long.MAX_VALUE, batch.dueAtMs(), "every call submits: never due by age");
    }
    assertTrue(batch.submitIfDue(1000 + StreamLog.DUE_EVERY_MS), "DUE_EVERY_MS old: submitted");
    assertEquals(0, batch.size());
    assertEquals(Long.MAX_VALUE, batch.dueAtMs(), "nothing held: never due");
    byte[] record = "{\"seq\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    int records = 0;
    while (batch.size() < StreamLog.DUE_BYTES - 64) {
      batch.record(2, 1, record, 0, record.length);
      records++;
    }
    if (StreamLog.DUE_EVERY_MS > 0) assertFalse(batch.submitIfDue(5000), "under DUE_BYTES and just seen: held");
    while (batch.size() < StreamLog.DUE_BYTES) {
      batch.record(2, 1, record, 0, record.length);
      records++;
    }
    assertTrue(batch.submitIfDue(5000), "DUE_BYTES held: submitted at once");
    batch.end(3, 1, "200", true, records, 0, 0, 0, "OK");
    batch.submit();
    StreamLog.closeAll();
    assertEquals(0, log.dropped());
    List<String[]> lines = Logs.lines(dir);
    assertEquals(records + 2, lines.size(), "every line written once, in order");
    assertEquals("B", lines.get(0)[0]);
    assertEquals("E", lines.get(lines.size() - 1)[0]);
  }

  @Test
  void aBufferHandedOverWholeIsReusedOnceWritten() throws Exception {
    StreamLog log = StreamLog.of(dir, 0);
    StreamLog.Batch batch = log.batch();
    byte[] record = new byte[200];
    java.util.Arrays.fill(record, (byte) 'x');
    int records = 0;
    for (int chunk = 0; chunk < 20; chunk++) {
      while (batch.size() < StreamLog.DUE_BYTES) {
        batch.record(1, 1, record, 0, record.length);
        records++;
      }
      assertTrue(batch.submitIfDue(0), "half full: handed over whole");
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (log.spareBuffers() == 0 && System.nanoTime() < deadline) Thread.sleep(1);   // the writer wrote it
      assertEquals(1, log.spareBuffers(), "the written buffer kept for reuse");
    }
    assertEquals(1, log.newBuffers(), "one buffer made new (the first hand-off's); the 19 others reused it");
    StreamLog.closeAll();
    assertEquals(0, log.dropped());
    assertEquals(records, Logs.lines(dir).size(), "every line written once: a reused buffer loses nothing");
  }

  @Test
  void aConnectCompletionIsOneCLineOfItsSample() throws Exception {
    StreamLog log = StreamLog.of(dir, 0);
    StreamLog.Batch batch = log.batch();
    batch.begin(1795839947536000L, 7, "Request 1-", 3, "request");
    batch.connected(1795839947536087L, 7, 87);
    batch.end(1795839947537000L, 7, "200", true, 0, 0, 0, 1795839947536090L, "OK", "", 1795839947536900L);
    batch.submit();
    StreamLog.closeAll();
    List<String[]> lines = Logs.lines(dir);
    assertEquals(3, lines.size());
    assertArrayEquals(new String[] {"C", "1795839947536087", "7", "87"}, lines.get(1));
  }

  @Test
  void aGzipLogNeverClosedIsReadableUpToItsLastFlush() throws Exception {
    StreamLog log = StreamLog.of(dir, 0, StreamLog.Codec.GZIP);
    StreamLog.Batch batch = log.batch();
    for (int i = 1; i <= 100; i++) {
      batch.begin(i, i, "Request 1-", 1, "request");
      batch.end(i, i, "200", true, 0, 0, 0, i, "OK", "", i);
    }
    batch.submit();
    log.begin(7, 1000, "Request 1-2", "request");   // the shared batch: taken by the writer at its flush
    Thread.sleep(StreamLog.FLUSH_EVERY_MS + 700);
    Path file = Logs.files(dir).get(0);
    List<String[]> lines = Logs.lines(file, true);   // no trailer yet: as a killed engine leaves it
    assertEquals(201, lines.size());
    assertEquals("1000", lines.get(200)[2]);
  }

  @Test
  void aWriteFailureIsKeptAndLaterLinesAreCountedAsDropped() throws Exception {
    Path notADirectory = dir.resolve("file");
    Files.writeString(notADirectory, "x");
    StreamLog log = StreamLog.of(notADirectory, 0);
    StreamLog.Batch batch = log.batch();
    for (int i = 1; i <= 10; i++) batch.begin(i, i, "Request 1-", 1, "request");
    batch.submit();
    for (int i = 1; i <= 5; i++) batch.begin(i, i, "Request 1-", 1, "request");
    batch.submit();
    log.end(1, 1, "200", true, 0, 0, 0, 1, "OK");
    StreamLog.closeAll();
    assertNotNull(log.failure());
    assertEquals(16, log.dropped());
    batch.begin(1, 1, "Request 1-", 1, "request");
    batch.submit();
    assertEquals(17, log.dropped(), "after the close too");
  }
}
