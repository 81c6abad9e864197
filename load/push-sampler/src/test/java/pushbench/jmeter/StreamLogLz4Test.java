package pushbench.jmeter;

// JUnit of the stream log's LZ4 codec and its recode to gzip (StreamLog, StreamLogRecode), on real files:
// a log written with lz4 ends, at its close, as push-<n>.tsv.gz holding exactly the lines written, no .lz4
// left; a later test's log starts the next file; an LZ4 file as a killed engine leaves it (never closed,
// or cut inside a block) recodes to the lines of its whole blocks, the bytes dropped counted; a file that
// is no LZ4 frame, or a recode that fails at the close, leaves the .lz4 as it is; the codec property.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StreamLogLz4Test {
  @TempDir Path dir;
  @TempDir Path copies;

  @AfterEach
  void close() {
    StreamLog.closeAll();
  }

  // Writes samples (B, two records, E) through one batch, submitting now and then, and returns the text
  // of the lines as the log format defines them (StreamLog's header), formatted here independently.
  private static String write(StreamLog log, int samples, long seed) {
    Random random = new Random(seed);
    StreamLog.Batch batch = log.batch();
    StringBuilder text = new StringBuilder();
    for (int s = 0; s < samples; s++) {
      long id = log.nextSampleId();
      long us = 1_795_839_947_000_000L + s * 1000L;
      batch.begin(us, id, "Request 1-", s % 50, "request");
      text.append("B\t").append(us).append('\t').append(id).append("\tRequest 1-").append(s % 50).append("\trequest\n");
      for (int r = 0; r < 2; r++) {
        StringBuilder rec = new StringBuilder("{\"id\":").append(id).append(",\"x\":\"");
        int n = 100 + random.nextInt(400);
        for (int i = 0; i < n; i++) rec.append((char) ('a' + random.nextInt(26)));
        rec.append("\"}");
        byte[] b = rec.toString().getBytes(StandardCharsets.UTF_8);
        batch.record(us + 10 + r, id, b, 0, b.length);
        text.append("R\t").append(us + 10 + r).append('\t').append(id).append('\t').append(rec).append('\n');
      }
      batch.end(us + 20, id, "200", true, 2, 900, 0, us + 1, "OK", "", us + 5);
      text.append("E\t").append(us + 20).append('\t').append(id).append("\t200\t1\t2\t900\t0\t").append(us + 1)
          .append("\tOK\t\t").append(us + 5).append('\n');
      if (random.nextInt(20) == 0) batch.submit();
    }
    batch.submit();
    return text.toString();
  }

  private static String gunzip(Path file) throws Exception {
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  // The text of a gzip file cut short: every byte up to its last sync point, and the end of input where
  // the trailer would be (a whole file fails the test).
  private static String gunzipCut(Path file) throws Exception {
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    byte[] b = new byte[1 << 14];
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      for (int n; (n = in.read(b)) > 0; ) text.write(b, 0, n);
    } catch (EOFException cut) {
      return text.toString(StandardCharsets.UTF_8);
    }
    throw new AssertionError(file + " is a whole gzip file: its trailer was written");
  }

  private static long newlines(String s) {
    return s.chars().filter(c -> c == '\n').count();
  }

  private static String names(Path d) throws Exception {
    try (var s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList().toString();
    }
  }

  @Test
  void anLz4LogEndsAsGzipWithExactlyTheLinesWritten() throws Exception {
    StreamLog log = StreamLog.of(dir, 0, StreamLog.Codec.LZ4);
    assertEquals(StreamLog.Codec.LZ4, log.codec());
    String text = write(log, 5000, 1);   // about 3.5 MB: some 50 blocks of 64 KB
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!Files.exists(dir.resolve("push-1.tsv.lz4")) && System.nanoTime() < deadline) Thread.sleep(5);
    assertTrue(Files.exists(dir.resolve("push-1.tsv.lz4")), "written as LZ4 during the load: " + names(dir));
    StreamLog.closeAll();
    assertEquals(0, log.dropped());
    assertEquals("[push-1.tsv.gz]", names(dir), "the .lz4 recoded and deleted, no .part left");
    assertEquals(text, gunzip(dir.resolve("push-1.tsv.gz")), "exactly the lines written, in order");
  }

  @Test
  void aLaterTestsLogStartsTheNextFile() throws Exception {
    String first = write(StreamLog.of(dir, 0, StreamLog.Codec.LZ4), 100, 2);
    StreamLog.closeAll();
    String second = write(StreamLog.of(dir, 0, StreamLog.Codec.LZ4), 100, 3);
    StreamLog.closeAll();
    assertEquals("[push-1.tsv.gz, push-2.tsv.gz]", names(dir));
    assertEquals(first, gunzip(dir.resolve("push-1.tsv.gz")));
    assertEquals(second, gunzip(dir.resolve("push-2.tsv.gz")));
  }

  // The ends of the blocks of an LZ4 file's one frame (no end mark yet: a log still open) and the bytes of
  // lines each holds, read with lz4-java's own decompressor.
  private record Block(int end, int contentBytes) { }

  private static List<Block> blocks(byte[] file) {
    assertEquals(0x184D2204, le32(file, 0), "an LZ4 frame");
    assertEquals(0x40, file[4] & 0xDD, "version 1, independent blocks, no checksums, no content size");
    LZ4SafeDecompressor d = LZ4Factory.fastestInstance().safeDecompressor();
    byte[] out = new byte[1 << 16];
    List<Block> blocks = new ArrayList<>();
    int at = 7;   // magic, FLG, BD, HC
    while (at + 4 <= file.length) {
      int word = le32(file, at);
      if (word == 0) break;
      int size = word & 0x7FFFFFFF;
      int n = (word & 0x80000000) != 0 ? size : d.decompress(file, at + 4, size, out, 0, out.length);
      at += 4 + size;
      blocks.add(new Block(at, n));
    }
    return blocks;
  }

  private static int le32(byte[] b, int off) {
    return (b[off] & 0xFF) | (b[off + 1] & 0xFF) << 8 | (b[off + 2] & 0xFF) << 16 | (b[off + 3] & 0xFF) << 24;
  }

  @Test
  void anLz4FileAsAKilledEngineLeavesItRecodesToItsWholeBlocks() throws Exception {
    StreamLog log = StreamLog.of(dir, 0, StreamLog.Codec.LZ4);
    String text = write(log, 400, 4);   // about 280 KB: full blocks cut lines anywhere
    Thread.sleep(StreamLog.FLUSH_EVERY_MS + 700);   // the writer's flush: the last block ends
    byte[] file = Files.readAllBytes(dir.resolve("push-1.tsv.lz4"));
    List<Block> blocks = blocks(file);
    assertTrue(blocks.size() >= 4, "blocks: " + blocks);
    assertEquals(file.length, blocks.get(blocks.size() - 1).end(), "the flush ended the last block; no end mark yet");
    assertEquals(text.length(), blocks.stream().mapToInt(Block::contentBytes).sum(), "every line written is in the file");

    // Never closed: every line, nothing dropped; still a log cut short (no end mark), and its .gz says so.
    Files.createDirectories(copies.resolve("whole"));
    Path whole = Files.write(copies.resolve("whole").resolve("push-1.tsv.lz4"), file);
    StreamLogRecode.Result all = StreamLogRecode.recode(whole);
    assertEquals(newlines(text), all.lines());
    assertEquals(0, all.cutBlockBytes());
    assertEquals(0, all.cutLineBytes());
    assertTrue(all.cut());
    assertEquals(text, gunzipCut(all.to()));

    // Cut 10 bytes into the third block: the first two kept up to their last line end.
    Files.createDirectories(copies.resolve("cut"));
    Path cut = Files.write(copies.resolve("cut").resolve("push-1.tsv.lz4"), Arrays.copyOf(file, blocks.get(1).end() + 10));
    int kept = blocks.get(0).contentBytes() + blocks.get(1).contentBytes();
    String keptText = text.substring(0, text.lastIndexOf('\n', kept - 1) + 1);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = StreamLogRecode.run(new String[] {cut.toString()}, new PrintStream(out, true), new PrintStream(err, true));
    assertEquals(0, code, err.toString());
    Path gz = copies.resolve("cut").resolve("push-1.tsv.gz");
    assertEquals(cut + " -> " + gz + ": " + newlines(keptText) + " lines kept, 10 bytes of a cut block dropped, "
        + (kept - keptText.length()) + " bytes of a cut line dropped, cut short: no end mark (the .gz ends without its gzip trailer)\n",
        out.toString());
    assertTrue(kept - keptText.length() > 0, "a full block ends inside a line");
    assertEquals(keptText, gunzipCut(gz));
    assertEquals("[push-1.tsv.gz]", names(copies.resolve("cut")));

    // Cut inside the frame's header: nothing kept, its 5 bytes dropped.
    Files.createDirectories(copies.resolve("head"));
    Path head = Files.write(copies.resolve("head").resolve("push-1.tsv.lz4"), Arrays.copyOf(file, 5));
    StreamLogRecode.Result none = StreamLogRecode.recode(head);
    assertEquals(0, none.lines());
    assertEquals(5, none.cutBlockBytes());
    assertEquals("", gunzipCut(none.to()));

    StreamLog.closeAll();   // the engine's own close: the whole log
    assertEquals(text, gunzip(dir.resolve("push-1.tsv.gz")));
  }

  @Test
  void aFileThatIsNoLz4FrameStaysAsItIsAndAnEmptyOneIsEmpty() throws Exception {
    Path bad = Files.writeString(dir.resolve("push-1.tsv.lz4"), "B\t1\t1\tnot compressed\n");
    Path empty = Files.write(dir.resolve("push-2.tsv.lz4"), new byte[0]);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = StreamLogRecode.run(new String[] {bad.toString(), empty.toString()}, new PrintStream(out, true), new PrintStream(err, true));
    assertEquals(1, code, "one file not recoded");
    assertEquals(bad + ": not recoded, kept as it is: no LZ4 frame at byte 0\n", err.toString());
    assertEquals(empty + " -> " + dir.resolve("push-2.tsv.gz") + ": 0 lines kept, 0 bytes of a cut block dropped, "
        + "0 bytes of a cut line dropped, cut short: no end mark (the .gz ends without its gzip trailer)\n", out.toString());
    assertEquals("", gunzipCut(dir.resolve("push-2.tsv.gz")), "an empty log: the engine never closed it");
    assertEquals("[push-1.tsv.lz4, push-2.tsv.gz]", names(dir));
    assertEquals("B\t1\t1\tnot compressed\n", Files.readString(bad));
    assertEquals(2, StreamLogRecode.run(new String[0], new PrintStream(out, true), new PrintStream(err, true)), "usage");
  }

  @Test
  void aRecodeThatFailsAtTheCloseKeepsTheLz4() throws Exception {
    StreamLog log = StreamLog.of(dir, 0, StreamLog.Codec.LZ4);
    String text = write(log, 200, 5);
    Files.createDirectory(dir.resolve("push-1.tsv.gz.part"));   // the recode's .part cannot be a file
    StreamLog.closeAll();
    assertEquals(0, log.dropped());
    assertFalse(Files.exists(dir.resolve("push-1.tsv.gz")));
    assertTrue(Files.exists(dir.resolve("push-1.tsv.lz4")), "kept as it is: " + names(dir));
    StreamLogRecode.Result later = StreamLogRecode.recode(dir.resolve("push-1.tsv.lz4"));   // by hand, later
    assertEquals(0, later.cutBlockBytes(), "a closed log: its frame whole");
    assertFalse(later.cut());
    assertEquals(text, gunzip(later.to()));   // whole, with its trailer
  }

  @Test
  void theCodecPropertyIsLz4OrGzip() {
    String before = System.getProperty(StreamLog.CODEC_PROPERTY);
    try {
      System.clearProperty(StreamLog.CODEC_PROPERTY);
      assertEquals(StreamLog.Codec.LZ4, StreamLog.Codec.configured(), "lz4 by default");
      System.setProperty(StreamLog.CODEC_PROPERTY, "gzip");
      assertEquals(StreamLog.Codec.GZIP, StreamLog.Codec.configured());
      System.setProperty(StreamLog.CODEC_PROPERTY, "LZ4");
      assertEquals(StreamLog.Codec.LZ4, StreamLog.Codec.configured());
      System.setProperty(StreamLog.CODEC_PROPERTY, "zstd");
      assertThrows(IllegalArgumentException.class, StreamLog.Codec::configured);
    } finally {
      if (before == null) System.clearProperty(StreamLog.CODEC_PROPERTY); else System.setProperty(StreamLog.CODEC_PROPERTY, before);
    }
  }

  @Test
  void theNativeCompressorIsUsedUnderAClassLoaderOfItsOwnAsJMetersLibExt() throws Exception {
    // JMeter loads lib/ext's jars with a class loader of its own, under which lz4-java's fastestInstance()
    // would give its Java compressor: the codec asks for the native one itself.
    List<java.net.URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      urls.add(Path.of(entry).toUri().toURL());
    }
    try (java.net.URLClassLoader ext = new java.net.URLClassLoader(urls.toArray(new java.net.URL[0]), ClassLoader.getPlatformClassLoader())) {
      Class<?> lz4Factory = Class.forName("net.jpountz.lz4.LZ4Factory", true, ext);
      Object fastest = lz4Factory.getMethod("fastestInstance").invoke(null);   // before the codec loads the library
      assertTrue(fastest.getClass().getClassLoader() == ext, "lz4-java loaded by the test's own class loader");
      assertEquals("LZ4Factory:JavaSafe", fastest.toString(), "fastestInstance() under a loader not the system's");
      Class<?> recode = Class.forName("pushbench.jmeter.StreamLogRecode", true, ext);
      java.lang.reflect.Field field = recode.getDeclaredField("LZ4");
      field.setAccessible(true);   // package-private, and this loader's package is another at run time
      Object factory = field.get(null);
      assertEquals("LZ4Factory:JNI", factory.toString(), "the codec's factory");
      Object compressor = lz4Factory.getMethod("fastCompressor").invoke(factory);
      assertEquals("LZ4JNICompressor", compressor.getClass().getSimpleName());
    }
  }
}
