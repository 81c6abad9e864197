package pushbench.jmeter;

// The engine's response log (issue #22, docs/run-layout.md "Stream logs"): every record of every push
// sample, appended as it arrives to one compressed file per engine (a new one after PB rotate size),
// instead of one file per sample; at rest each is push-<n>.tsv.gz. One line per fact, tab-separated, UTF-8:
//   B <µs> <sample id> <thread> <label>         a sample began (µs: its start, before any connect)
//   C <µs> <sample id> <connect µs>             the mux engine: its connection's first TCP connect completed
//                                               (µs), connect µs after the connect call; once per connection
//   R <µs> <sample id> <record>                 one record of its answer arrived (µs: the read that ended it)
//   E <µs> <sample id> <code> <ok> <records> <body bytes> <cut bytes> <sent µs> <message> [<failure> <headers µs>]
//                                               the sample ended; sent µs: just before its request's first
//                                               byte was written (0: never sent), for the clock offset;
//                                               with the sample's verdict (the mux engine, and the push
//                                               sampler once JMeter judged its sample): failure (11th field),
//                                               empty when the answer passed its assertions, else why it
//                                               failed, and headers µs (12th), when the answer's head was
//                                               read (0: never), what JMeter calls a sample's latency
// µs are the engine clock's microseconds since the epoch; a sample id is unique per engine and test. The
// thread of a record is its sample's (B line).
//
// Codec (Codec, the system property pushbench.streamLog.codec): lz4, the default, writes each file as an LZ4
// frame (push-<n>.tsv.lz4: 64 KB blocks, the native fast compressor, a quarter of deflate's CPU per byte) and,
// when the log closes (the test ended: after the load, on the closing thread, never a producer's), recodes
// each to push-<n>.tsv.gz (StreamLogRecode: gzip BEST_SPEED, through a .part) and deletes it; a file that
// cannot be recoded stays .lz4 and the JMeter log says so. gzip writes push-<n>.tsv.gz (BEST_SPEED) during
// the load, for a reader that follows the growing file. An .lz4 left by a killed engine is recoded by
// StreamLogRecode's main (host/archive.sh tar).
//
// Mechanism: producers never compress and never wait for the file. Each producer thread formats lines into
// its own Batch (a byte buffer) and submits it whole (a line is never split across submits) to the log's
// bounded queue; one writer thread per log takes the chunks in order, compresses them (the codec), rotates
// between chunks only (on the compressed bytes written), and flushes once a second (gzip: a sync flush; lz4:
// the block ends), so a killed engine leaves a file readable up to its last second. A buffer handed over
// whole goes back to the producers once written (SPARE_BUFFERS), so a batch's buffers are reused rather than
// allocated per hand-off. A full queue (QUEUE_CHUNKS chunks: the disk or the compressor cannot keep up)
// blocks the submitting producer until the writer has room: the load slows rather than the heap growing
// without bound. begin/record/end on the log itself format into one shared batch under a short lock (the
// per-thread PushSampler); that batch is submitted at each E line or once it holds SHARED_SUBMIT_BYTES, and
// the writer takes what it holds at each flush. A write failure (a full disk) is kept: later lines are
// dropped and counted, the load goes on.

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import net.jpountz.lz4.LZ4FrameOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public final class StreamLog {
  /** Compressed bytes after which the next file begins. */
  static final long DEFAULT_ROTATE_BYTES = 256L << 20;
  static final long FLUSH_EVERY_MS = 1000;
  /** Chunks the queue holds before a producer waits. */
  static final int QUEUE_CHUNKS = 1024;
  /** A batch's buffer; a longer line gets a buffer of its own size. */
  static final int BATCH_BYTES = 1 << 16;
  /**
   * Written batch buffers kept for the producers' next ones: a batch handed over whole takes a spare instead
   * of a new buffer, so a selector thread allocates nothing per record for its log.
   */
  static final int SPARE_BUFFERS = 64;
  /** The shared batch (begin/record/end) is submitted once it holds this much, and at each E line. */
  static final int SHARED_SUBMIT_BYTES = 16384;
  /**
   * A selector thread's batch (submitIfDue) goes to the writer once it holds this much: half the buffer, so the
   * buffer itself is handed over (no copy) and the writer wakes about 30 times a second at 15,000 records/s.
   */
  static final int DUE_BYTES = BATCH_BYTES / 2;
  /**
   * ... or once its oldest line waited this long (ms; the selector wakes by then: dueAtMs):
   * pushbench.streamLog.submitEveryMs, 100 by default (0 submits at every call, every selector wake-up; the
   * batched hand-off cost 0.78-0.94 of that one's engine CPU per record at 15,000 comet streams, three pairs:
   * docs/engine.md "The log hand-off batched").
   * Lines reach the file at the writer's next flush (FLUSH_EVERY_MS) either way.
   */
  static final long DUE_EVERY_MS = Math.max(0, Long.getLong("pushbench.streamLog.submitEveryMs", 100));
  /** The system property naming the codec of the logs an engine opens (Codec.configured). */
  public static final String CODEC_PROPERTY = "pushbench.streamLog.codec";

  /** How the writer compresses during the load. */
  public enum Codec {
    /** An LZ4 frame (push-<n>.tsv.lz4), recoded to push-<n>.tsv.gz when the log closes. */
    LZ4,
    /** gzip, BEST_SPEED (push-<n>.tsv.gz) from the start: a reader may follow the growing file. */
    GZIP;

    /** The codec CODEC_PROPERTY names, lz4 or gzip (lz4 when unset); IllegalArgumentException on another. */
    public static Codec configured() {
      String v = System.getProperty(CODEC_PROPERTY, "lz4").trim();
      if (v.equalsIgnoreCase("lz4")) return LZ4;
      if (v.equalsIgnoreCase("gzip")) return GZIP;
      throw new IllegalArgumentException(CODEC_PROPERTY + "=" + v + ": lz4 or gzip");
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(StreamLog.class);
  private static final Map<Path, StreamLog> OPEN = new HashMap<>();
  private static final Chunk END = new Chunk(new byte[0], 0, 0);

  private final Path dir;
  private final long rotateBytes;
  private final Codec codec;
  private final AtomicLong sampleIds = new AtomicLong();
  private final BlockingQueue<Chunk> queue = new ArrayBlockingQueue<>(QUEUE_CHUNKS);
  private final BlockingQueue<byte[]> spares = new ArrayBlockingQueue<>(SPARE_BUFFERS);
  private final AtomicLong newBuffers = new AtomicLong();
  private final ReentrantLock sharedLock = new ReentrantLock();
  private final Batch shared = new Batch(BATCH_BYTES);
  private final AtomicLong dropped = new AtomicLong();
  private final Thread writer;
  private volatile boolean closed;
  private volatile IOException failure;   // the first write failure: later lines are dropped, counted

  // The writer thread's own state.
  private Counting counting;
  private OutputStream out;
  private int fileIndex;
  private boolean unflushed;
  private final List<Path> lz4Files = new ArrayList<>();   // to recode at the close (read after the writer's join)

  /** Bytes of whole lines, as one producer submitted them. */
  private record Chunk(byte[] bytes, int length, int lines) { }

  private StreamLog(Path dir, long rotateBytes, Codec codec) {
    this.dir = dir;
    this.rotateBytes = rotateBytes;
    this.codec = codec;
    writer = new Thread(this::writeLoop, "pushbench-stream-log " + dir.getFileName());
    writer.setDaemon(true);
    writer.start();
  }

  /** The log of this directory with the configured codec (Codec.configured). */
  public static StreamLog of(Path dir, long rotateBytes) {
    return of(dir, rotateBytes, Codec.configured());
  }

  /**
   * The log of this directory (created on first use, with codec), shared by every thread of the engine; a
   * log already open keeps its own codec.
   */
  public static synchronized StreamLog of(Path dir, long rotateBytes, Codec codec) {
    Path key = dir.toAbsolutePath().normalize();
    StreamLog log = OPEN.get(key);
    if (log == null) {
      log = new StreamLog(key, rotateBytes > 0 ? rotateBytes : DEFAULT_ROTATE_BYTES, codec);
      OPEN.put(key, log);
    }
    return log;
  }

  /**
   * Ends every open log (the test ended): each writer drains its queue, ends its file (the gzip trailer,
   * the LZ4 end mark) and is joined, then its LZ4 files are recoded to gzip; the next test starts new files.
   * Lines submitted to a closed log are dropped and counted.
   */
  public static void closeAll() {
    List<StreamLog> logs;
    synchronized (StreamLog.class) {
      logs = new ArrayList<>(OPEN.values());
      OPEN.clear();
    }
    for (StreamLog log : logs) log.close();
  }

  public long nextSampleId() {
    return sampleIds.incrementAndGet();
  }

  /** A batch for one producer thread (not thread-safe); its lines reach the file when it is submitted. */
  public Batch batch() {
    return new Batch(BATCH_BYTES);
  }

  public void begin(long micros, long id, String thread, String label) {
    sharedLock.lock();
    try {
      shared.begin(micros, id, thread, label);
      if (shared.size() >= SHARED_SUBMIT_BYTES) shared.submit();
    } finally {
      sharedLock.unlock();
    }
  }

  public void record(long micros, long id, byte[] b, int off, int len) {
    sharedLock.lock();
    try {
      shared.record(micros, id, b, off, len);
      if (shared.size() >= SHARED_SUBMIT_BYTES) shared.submit();
    } finally {
      sharedLock.unlock();
    }
  }

  public void end(long micros, long id, String code, boolean ok, int records, long bodyBytes, int cutBytes,
                  long sentMicros, String message) {
    sharedLock.lock();
    try {
      shared.end(micros, id, code, ok, records, bodyBytes, cutBytes, sentMicros, message);
      shared.submit();
    } finally {
      sharedLock.unlock();
    }
  }

  /** E with the verdict (failure, the 11th field) and headers µs (the 12th), as Batch.end gives them. */
  public void end(long micros, long id, String code, boolean ok, int records, long bodyBytes, int cutBytes,
                  long sentMicros, String message, String failure, long headersMicros) {
    sharedLock.lock();
    try {
      shared.end(micros, id, code, ok, records, bodyBytes, cutBytes, sentMicros, message, failure, headersMicros);
      shared.submit();
    } finally {
      sharedLock.unlock();
    }
  }

  /** Lines that could not be written (a full disk, a closed log), and why; 0 and null when all went well. */
  public long dropped() { return dropped.get(); }

  public IOException failure() { return failure; }

  public Path directory() { return dir; }

  public Codec codec() { return codec; }

  /** Written buffers waiting for a producer, and the buffers made new for hand-offs so far (for tests). */
  int spareBuffers() { return spares.size(); }

  long newBuffers() { return newBuffers.get(); }

  // ---- producers' side ------------------------------------------------------------------------------------

  // Hands a chunk to the writer; waits while the queue is full (the documented back-pressure).
  private void enqueue(Chunk c) {
    if (closed || failure != null) {
      dropped.addAndGet(c.lines);
      return;
    }
    try {
      while (!queue.offer(c, 100, TimeUnit.MILLISECONDS)) {
        if (closed || !writer.isAlive()) {
          dropped.addAndGet(c.lines);
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      dropped.addAndGet(c.lines);
    }
  }

  // Called once, by closeAll: the writer finishes what was queued, then the file; queued leftovers of a
  // producer that raced the close are counted as dropped.
  private void close() {
    closed = true;
    try {
      while (writer.isAlive() && !queue.offer(END, 100, TimeUnit.MILLISECONDS)) { /* the writer drains */ }
      writer.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Chunk c; (c = queue.poll()) != null; ) dropped.addAndGet(c.lines);
    recodeAll();
  }

  // The LZ4 files of this log recoded to gzip, one after the other, on the closing thread; one that cannot
  // be recoded stays .lz4, and the JMeter log says why and how to recode it later.
  private void recodeAll() {
    for (Path f : lz4Files) {
      try {
        long t0 = System.nanoTime();
        String done = StreamLogRecode.recode(f).line();
        LOG.info("stream log: {} ({} ms)", done, (System.nanoTime() - t0) / 1_000_000);
      } catch (IOException e) {
        LOG.error("stream log: {} not recoded to gzip, kept as it is ({}); recode it with: java -cp \"$JMETER_HOME/lib/ext/*\" "
            + "{} {}", f, e.getMessage(), StreamLogRecode.class.getName(), f);
      }
    }
    lz4Files.clear();
  }

  // ---- the writer thread ----------------------------------------------------------------------------------

  private void writeLoop() {
    try {
      long nextFlush = monoMillis() + FLUSH_EVERY_MS;
      boolean ending = false;
      while (!ending) {
        long wait = nextFlush - monoMillis();
        Chunk c = wait > 0 ? queue.poll(wait, TimeUnit.MILLISECONDS) : queue.poll();
        if (c == END) break;
        if (c != null) write(c);
        if (monoMillis() >= nextFlush) {
          ending = flushTick(false);
          nextFlush = monoMillis() + FLUSH_EVERY_MS;
        }
      }
      flushTick(true);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      finishFile();
    }
  }

  // Writes what is queued, then what the shared batch holds (in this order: the shared batch's earlier
  // chunks are queued), then sync-flushes. Returns whether the close marker was among the queued chunks.
  // While the test runs the shared lock is only tried: a producer holding it may be waiting for room in
  // the queue, which only this thread makes.
  private boolean flushTick(boolean closing) {
    if (closing) sharedLock.lock(); else if (!sharedLock.tryLock()) { flush(); return false; }
    boolean ending = false;
    try {
      List<Chunk> queued = new ArrayList<>();
      queue.drainTo(queued);
      for (Chunk c : queued) {
        if (c == END) ending = true; else write(c);
      }
      Chunk rest = shared.take();
      if (rest != null) write(rest);
    } finally {
      sharedLock.unlock();
    }
    flush();
    return ending;
  }

  private void write(Chunk c) {
    if (c.length == 0) return;
    if (failure != null) {
      dropped.addAndGet(c.lines);
      return;
    }
    try {
      if (out == null) openFile();
      out.write(c.bytes, 0, c.length);
      unflushed = true;
      if (c.bytes.length == BATCH_BYTES) spares.offer(c.bytes);   // written: a producer may fill it again
      if (counting.count >= rotateBytes) finishFile();   // the next chunk opens push-<n+1>
    } catch (IOException e) {
      failed(e);
      dropped.addAndGet(c.lines);
    }
  }

  // The next push-<n> that is neither a .gz nor an .lz4 yet (an earlier test's files stay).
  private void openFile() throws IOException {
    Files.createDirectories(dir);
    Path gz;
    Path lz4;
    do {
      fileIndex++;
      gz = dir.resolve("push-" + fileIndex + ".tsv.gz");
      lz4 = dir.resolve("push-" + fileIndex + ".tsv.lz4");
    } while (Files.exists(gz) || Files.exists(lz4));
    Path file = codec == Codec.LZ4 ? lz4 : gz;
    counting = new Counting(new BufferedOutputStream(new FileOutputStream(file.toFile()), 1 << 16));
    if (codec == Codec.LZ4) {
      lz4Files.add(file);
      out = new LZ4FrameOutputStream(counting, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB, -1L,
          StreamLogRecode.LZ4.fastCompressor(), StreamLogRecode.XXHASH.hash32(),
          LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE);
    } else {
      out = new FastGzip(counting, true);
    }
    unflushed = false;
  }

  private void flush() {
    if (out == null || !unflushed) return;
    try {
      out.flush();   // a gzip sync point, or the LZ4 block ends: everything written so far can be read back
      unflushed = false;
    } catch (IOException e) {
      failed(e);
    }
  }

  private void finishFile() {
    if (out == null) return;
    try {
      out.close();   // the gzip trailer, or the LZ4 end mark
    } catch (IOException e) {
      if (failure == null) failure = e;
    }
    out = null;
    counting = null;
  }

  private void failed(IOException e) {
    if (failure == null) failure = e;
    try { if (out != null) out.close(); } catch (IOException ignored) { /* already failing */ }
    out = null;
    counting = null;
  }

  private static long monoMillis() {
    return System.nanoTime() / 1_000_000;
  }

  // ---- batches --------------------------------------------------------------------------------------------

  /**
   * The lines of one producer thread, formatted into its own buffer (not thread-safe). A line is never
   * split: when the next one does not fit, what the batch holds is submitted first, and a line longer
   * than the buffer gets a buffer of its size. submit() hands the lines to the log's writer.
   */
  public final class Batch {
    private final int capacity;
    private final byte[] digits = new byte[20];
    private byte[] buf;
    private int len;
    private int lines;
    private long heldSinceMs = -1;   // when submitIfDue first saw lines held (-1: none seen since the last submit)

    Batch(int capacity) {
      this.capacity = capacity;
      this.buf = new byte[capacity];
    }

    /** B: a sample began. */
    public void begin(long micros, long id, String thread, String label) {
      ensure(64 + maxText(thread) + maxText(label));
      put('B');
      field(micros);
      field(id);
      text(thread);
      text(label);
      endLine();
    }

    /** B with the thread named threadPrefix + threadNumber (no string built per sample). */
    public void begin(long micros, long id, String threadPrefix, long threadNumber, String label) {
      ensure(84 + maxText(threadPrefix) + maxText(label));
      put('B');
      field(micros);
      field(id);
      text(threadPrefix);
      number(threadNumber);
      text(label);
      endLine();
    }

    /** C: the sample's connection completed its first TCP connect at micros, tookMicros after the connect call. */
    public void connected(long micros, long id, long tookMicros) {
      ensure(64);
      put('C');
      field(micros);
      field(id);
      field(tookMicros);
      endLine();
    }

    /** R: one record (its bytes as they came, without the "\n"). */
    public void record(long micros, long id, byte[] b, int off, int n) {
      ensure(48 + n);
      put('R');
      field(micros);
      field(id);
      put('\t');
      System.arraycopy(b, off, buf, len, n);
      len += n;
      endLine();
    }

    /** E with ten fields: no verdict (the lines of older runs, and of tools and tests that write them). */
    public void end(long micros, long id, String code, boolean ok, int records, long bodyBytes, int cutBytes,
                    long sentMicros, String message) {
      endLine(micros, id, code, ok, records, bodyBytes, cutBytes, sentMicros, message, null, 0);
    }

    /**
     * E with the mux engine's two more fields: failure (the 11th, empty when the answer passed its assertions)
     * and headers µs (the 12th, when the answer's head was read; 0 when none was).
     */
    public void end(long micros, long id, String code, boolean ok, int records, long bodyBytes, int cutBytes,
                    long sentMicros, String message, String failure, long headersMicros) {
      endLine(micros, id, code, ok, records, bodyBytes, cutBytes, sentMicros, message, failure == null ? "" : failure, headersMicros);
    }

    private void endLine(long micros, long id, String code, boolean ok, int records, long bodyBytes, int cutBytes,
                         long sentMicros, String message, String failure, long headersMicros) {
      ensure(200 + maxText(code) + maxText(message) + maxText(failure));
      put('E');
      field(micros);
      field(id);
      text(code);
      field(ok ? 1 : 0);
      field(records);
      field(bodyBytes);
      field(cutBytes);
      field(sentMicros);
      text(message);
      if (failure != null) {
        text(failure);
        field(headersMicros);
      }
      endLine();
    }

    /** Bytes held. */
    public int size() { return len; }

    /** Lines held. */
    public int lines() { return lines; }

    /**
     * Submits the lines held when due: DUE_BYTES held, or the oldest seen DUE_EVERY_MS before nowMs (a
     * monotonic clock in ms). True when it submitted. With DUE_EVERY_MS 0 every call with lines
     * held submits; above 0, a thread calling this after each wake-up hands the writer a few large chunks a
     * second instead of one small copy per wake-up. The thread calls submit() at its end.
     */
    public boolean submitIfDue(long nowMs) {
      if (len == 0) {
        heldSinceMs = -1;
        return false;
      }
      if (heldSinceMs < 0) heldSinceMs = nowMs;
      if (len < DUE_BYTES && nowMs - heldSinceMs < DUE_EVERY_MS) return false;
      submit();
      return true;
    }

    /**
     * When the lines held fall due by age (submitIfDue), on nowMs's clock: Long.MAX_VALUE when none is held
     * or every call submits (DUE_EVERY_MS 0). A thread that sleeps between its calls wakes by then, so a
     * batch is handed over DUE_EVERY_MS after it was first seen, not at the thread's next wake-up for
     * another reason.
     */
    public long dueAtMs() {
      return len == 0 || heldSinceMs < 0 || DUE_EVERY_MS == 0 ? Long.MAX_VALUE : heldSinceMs + DUE_EVERY_MS;
    }

    /** Hands the lines held to the log's writer (waits while its queue is full) and starts empty. */
    public void submit() {
      heldSinceMs = -1;
      Chunk c = take();
      if (c != null) enqueue(c);
    }

    // The lines held as a chunk (the buffer itself when it is at least half full, else a copy); null if none.
    Chunk take() {
      if (len == 0) return null;
      Chunk c;
      if (len >= buf.length / 2) {
        c = new Chunk(buf, len, lines);
        buf = buffer();
      } else {
        c = new Chunk(Arrays.copyOf(buf, len), len, lines);
        if (buf.length > capacity) buf = new byte[capacity];
      }
      len = 0;
      lines = 0;
      return c;
    }

    // An empty buffer of the batch's capacity: a written one when the writer has one spare, else a new one.
    private byte[] buffer() {
      byte[] b = capacity == BATCH_BYTES ? spares.poll() : null;
      if (b != null) return b;
      newBuffers.incrementAndGet();
      return new byte[capacity];
    }

    // Room for a line of at most n bytes: what is held goes first when it would not fit.
    private void ensure(int n) {
      if (len + n <= buf.length) return;
      if (len > 0) submit();
      if (n > buf.length) buf = new byte[n];
    }

    private void put(char c) {
      buf[len++] = (byte) c;
    }

    private void endLine() {
      buf[len++] = '\n';
      lines++;
    }

    private void field(long v) {
      buf[len++] = '\t';
      number(v);
    }

    private void number(long v) {
      if (v == 0) { buf[len++] = '0'; return; }
      boolean negative = v < 0;
      int i = digits.length;
      long x = negative ? -v : v;
      while (x > 0) { digits[--i] = (byte) ('0' + (x % 10)); x /= 10; }
      if (negative) digits[--i] = '-';
      System.arraycopy(digits, i, buf, len, digits.length - i);
      len += digits.length - i;
    }

    // A text field: tabs and line ends would break the line format, so they become spaces.
    private void text(String s) {
      buf[len++] = '\t';
      if (s == null) return;
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c >= 0x80) {   // beyond ASCII: the rest as UTF-8
          byte[] rest = s.substring(i).replace('\t', ' ').replace('\n', ' ').replace('\r', ' ')
              .getBytes(StandardCharsets.UTF_8);
          System.arraycopy(rest, 0, buf, len, rest.length);
          len += rest.length;
          return;
        }
        buf[len++] = (byte) (c == '\t' || c == '\n' || c == '\r' ? ' ' : c);
      }
    }
  }

  // The most bytes a text field of s can take (UTF-8: three per char at most).
  private static int maxText(String s) {
    return s == null ? 1 : 1 + 3 * s.length();
  }

  /** Counts the compressed bytes written, for the rotation. */
  private static final class Counting extends FilterOutputStream {
    long count;

    Counting(OutputStream out) { super(out); }

    @Override public void write(int b) throws IOException { out.write(b); count++; }

    @Override public void write(byte[] b, int off, int len) throws IOException { out.write(b, off, len); count += len; }
  }
}
