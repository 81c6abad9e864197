// What the stream log's codec costs the engine (issue #48 item 2; bench/log-codec-cost.sh, docs/engine.md
// "The stream log's codec"): the lines of a real stream log pushed through each codec the writer can use,
// as the writer pushes them (64 KB chunks into the stream, a flush once every 5 MB: a second of 15,000
// records), into a stream that only counts the bytes, on one thread:
//   gzip  java.util.zip.GZIPOutputStream at BEST_SPEED, sync flush (zlib's deflate, its copy into the window
//         and the CRC-32)
//   lz4   net.jpountz.lz4.LZ4FrameOutputStream, 64 KB independent blocks, lz4-java's native fast compressor
//         and xxHash (as StreamLogRecode.LZ4 and XXHASH give the engine)
//
//   java -cp <lz4-java jar>:<classes> LogCodecCost <push-<n>.tsv.gz> <bytes of lines> <repeats>
//
// It reads up to <bytes> of the log's lines into memory, then runs each codec once to warm up and
// <repeats> times measured, taking turns. One JSON line per measured run on stdout:
//   {"codec","repeat","bytesIn","bytesOut","nsPerByte","ratio"}
// nsPerByte: the run's thread CPU time (ThreadMXBean) / bytesIn; ratio: bytesIn / bytesOut.
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameOutputStream;

public final class LogCodecCost {
  private static final int CHUNK = 1 << 16;
  private static final int FLUSH_EVERY = 5 << 20;

  /** Counts what it is given and keeps nothing. */
  private static final class Counting extends OutputStream {
    long count;
    @Override public void write(int b) { count++; }
    @Override public void write(byte[] b, int off, int len) { count += len; }
  }

  private interface Codec { OutputStream open(OutputStream out) throws IOException; }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: java LogCodecCost <push-<n>.tsv.gz> <bytes of lines> <repeats>");
      System.exit(2);
    }
    byte[] lines = read(args[0], Long.parseLong(args[1]));
    int repeats = Integer.parseInt(args[2]);
    String[] names = {"gzip", "lz4"};
    Codec[] codecs = {
      out -> new GZIPOutputStream(out, CHUNK, true) { { def.setLevel(Deflater.BEST_SPEED); } },
      out -> new LZ4FrameOutputStream(out, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB, -1L,
          LZ4Factory.nativeInstance().fastCompressor(), net.jpountz.xxhash.XXHashFactory.nativeInstance().hash32(),
          LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE),
    };
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    for (int repeat = 0; repeat <= repeats; repeat++) {
      for (int c = 0; c < codecs.length; c++) {
        Counting sink = new Counting();
        long t0 = mx.getCurrentThreadCpuTime();
        try (OutputStream out = codecs[c].open(sink)) {
          for (int off = 0, sinceFlush = 0; off < lines.length; off += CHUNK) {
            int len = Math.min(CHUNK, lines.length - off);
            out.write(lines, off, len);
            sinceFlush += len;
            if (sinceFlush >= FLUSH_EVERY) {
              out.flush();
              sinceFlush = 0;
            }
          }
        }
        long ns = mx.getCurrentThreadCpuTime() - t0;
        if (repeat == 0) continue;   // the warm-up
        System.out.printf("{\"codec\":\"%s\",\"repeat\":%d,\"bytesIn\":%d,\"bytesOut\":%d,\"nsPerByte\":%.3f,\"ratio\":%.2f}%n",
            names[c], repeat, lines.length, sink.count, (double) ns / lines.length, (double) lines.length / sink.count);
      }
    }
  }

  // Up to max bytes of the gzip file's lines, whole lines only.
  private static byte[] read(String file, long max) throws IOException {
    try (InputStream in = new GZIPInputStream(new FileInputStream(file), CHUNK)) {
      byte[] buf = in.readNBytes((int) Math.min(max, Integer.MAX_VALUE - 8));
      int end = buf.length;
      while (end > 0 && buf[end - 1] != '\n') end--;
      if (end == 0) throw new IOException(file + ": no whole line in its first " + buf.length + " bytes");
      return java.util.Arrays.copyOf(buf, end);
    }
  }
}
