package pushbench.jmeter;

// The engine's response log (issue #22, docs/run-layout.md "Stream logs"): every record of every push
// sample, appended as it arrives to one gzip file per engine (push-<n>.tsv.gz, a new one after
// PB rotate size), instead of one file per sample. One line per fact, tab-separated, UTF-8:
//   B <µs> <sample id> <thread> <label>         a sample began (µs: its start, before any connect)
//   R <µs> <sample id> <record>                 one record of its answer arrived (µs: the read that ended it)
//   E <µs> <sample id> <code> <ok> <records> <body bytes> <cut bytes> <sent µs> <message>
//                                               the sample ended; sent µs: just before its request's first
//                                               byte was written (0: never sent), for the clock offset
// µs are the engine clock's microseconds since the epoch; a sample id is unique per engine and test. The
// thread of a record is its sample's (B line). Lines are flushed (a gzip sync point) once a second, so a
// killed engine leaves a file readable up to its last second.

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

public final class StreamLog {
  /** Compressed bytes after which the next file begins. */
  static final long DEFAULT_ROTATE_BYTES = 256L << 20;
  static final long FLUSH_EVERY_MS = 1000;

  private static final Map<Path, StreamLog> OPEN = new HashMap<>();
  private static Thread flusher;

  private final Path dir;
  private final long rotateBytes;
  private final AtomicLong sampleIds = new AtomicLong();
  private final byte[] digits = new byte[20];
  private Counting counting;
  private OutputStream out;
  private int fileIndex;
  private IOException failure;   // the first write failure: later writes are dropped, counted
  private long dropped;

  private StreamLog(Path dir, long rotateBytes) {
    this.dir = dir;
    this.rotateBytes = rotateBytes;
  }

  /** The log of this directory (created on first use), shared by every thread of the engine. */
  public static synchronized StreamLog of(Path dir, long rotateBytes) {
    Path key = dir.toAbsolutePath().normalize();
    StreamLog log = OPEN.get(key);
    if (log == null) {
      log = new StreamLog(key, rotateBytes > 0 ? rotateBytes : DEFAULT_ROTATE_BYTES);
      OPEN.put(key, log);
      startFlusher();
    }
    return log;
  }

  /** Ends every open log (the test ended): the gzip trailers are written, the next test starts new files. */
  public static synchronized void closeAll() {
    for (StreamLog log : OPEN.values()) log.close();
    OPEN.clear();
  }

  private static void startFlusher() {
    if (flusher != null && flusher.isAlive()) return;
    flusher = new Thread(() -> {
      try {
        for (;;) {
          Thread.sleep(FLUSH_EVERY_MS);
          StreamLog[] logs;
          synchronized (StreamLog.class) { logs = OPEN.values().toArray(new StreamLog[0]); }
          for (StreamLog log : logs) log.flush();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "pushbench-stream-log-flush");
    flusher.setDaemon(true);
    flusher.start();
  }

  public long nextSampleId() {
    return sampleIds.incrementAndGet();
  }

  public synchronized void begin(long micros, long id, String thread, String label) {
    if (!ready()) return;
    try {
      out.write('B');
      field(micros);
      field(id);
      text(thread);
      text(label);
      out.write('\n');
    } catch (IOException e) { failed(e); }
  }

  public synchronized void record(long micros, long id, byte[] b, int off, int len) {
    if (!ready()) return;
    try {
      out.write('R');
      field(micros);
      field(id);
      out.write('\t');
      out.write(b, off, len);
      out.write('\n');
    } catch (IOException e) { failed(e); }
  }

  public synchronized void end(long micros, long id, String code, boolean ok, int records, long bodyBytes, int cutBytes,
                               long sentMicros, String message) {
    if (!ready()) return;
    try {
      out.write('E');
      field(micros);
      field(id);
      text(code);
      field(ok ? 1 : 0);
      field(records);
      field(bodyBytes);
      field(cutBytes);
      field(sentMicros);
      text(message);
      out.write('\n');
    } catch (IOException e) { failed(e); }
    if (counting != null && counting.count >= rotateBytes) close();   // the next line opens push-<n+1>
  }

  /** Lines that could not be written (a full disk), and why; 0 and null when all went well. */
  public synchronized long dropped() { return dropped; }

  public synchronized IOException failure() { return failure; }

  public Path directory() { return dir; }

  private boolean ready() {
    if (failure != null) { dropped++; return false; }
    if (out != null) return true;
    try {
      Files.createDirectories(dir);
      Path file;
      do { file = dir.resolve("push-" + (++fileIndex) + ".tsv.gz"); } while (Files.exists(file));
      counting = new Counting(new FileOutputStream(file.toFile()));
      out = new BufferedOutputStream(new FastGzip(counting), 1 << 16);
      return true;
    } catch (IOException e) {
      failed(e);
      dropped++;
      return false;
    }
  }

  private void failed(IOException e) {
    if (failure == null) failure = e;
    try { if (out != null) out.close(); } catch (IOException ignored) { /* already failing */ }
    out = null;
  }

  synchronized void flush() {
    if (out == null) return;
    try { out.flush(); } catch (IOException e) { failed(e); }
  }

  synchronized void close() {
    if (out == null) return;
    try { out.close(); } catch (IOException e) { if (failure == null) failure = e; }
    out = null;
    counting = null;
  }

  private void field(long v) throws IOException {
    out.write('\t');
    if (v == 0) { out.write('0'); return; }
    boolean negative = v < 0;
    int i = digits.length;
    long x = negative ? -v : v;
    while (x > 0) { digits[--i] = (byte) ('0' + (x % 10)); x /= 10; }
    if (negative) digits[--i] = '-';
    out.write(digits, i, digits.length - i);
  }

  // A text field: tabs and line ends would break the line format, so they become spaces.
  private void text(String s) throws IOException {
    out.write('\t');
    if (s == null) return;
    out.write(s.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ').getBytes(StandardCharsets.UTF_8));
  }

  /** gzip at the fastest level (the engine's CPU belongs to the load), sync-flushed on flush(). */
  private static final class FastGzip extends GZIPOutputStream {
    FastGzip(OutputStream out) throws IOException {
      super(out, 1 << 16, true);
      def.setLevel(Deflater.BEST_SPEED);
    }
  }

  /** Counts the compressed bytes written, for the rotation. */
  private static final class Counting extends FilterOutputStream {
    long count;

    Counting(OutputStream out) { super(out); }

    @Override public void write(int b) throws IOException { out.write(b); count++; }

    @Override public void write(byte[] b, int off, int len) throws IOException { out.write(b, off, len); count += len; }
  }
}
