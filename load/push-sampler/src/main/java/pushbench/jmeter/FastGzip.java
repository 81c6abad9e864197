package pushbench.jmeter;

// gzip at the fastest level (BEST_SPEED), the stream logs' format at rest (docs/run-layout.md "Stream
// logs"): the engine's CPU belongs to the load. StreamLog writes it live with the gzip codec (sync-flushed
// on flush(), so a reader following the growing file gets every line written so far); StreamLogRecode
// writes it from an LZ4 log after the load, and leaves it cut short (markCut) when the LZ4 log was.

import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

final class FastGzip extends GZIPOutputStream {
  private boolean cut;
  private boolean closed;

  /** syncFlush: flush() ends the deflate block (a sync point) instead of only flushing out. */
  FastGzip(OutputStream out, boolean syncFlush) throws IOException {
    super(out, 1 << 16, syncFlush);
    def.setLevel(Deflater.BEST_SPEED);
  }

  /**
   * close() then ends the file as a gzip writer killed after a flush leaves it: every byte written so far
   * readable up to a sync point, no last deflate block and no trailer, so a reader sees a file cut short.
   */
  void markCut() {
    cut = true;
  }

  @Override
  public void close() throws IOException {
    if (!cut) {
      super.close();
      return;
    }
    if (closed) return;
    closed = true;
    try {
      int n;
      do {   // every byte written so far, to a sync point
        n = def.deflate(buf, 0, buf.length, Deflater.SYNC_FLUSH);
        out.write(buf, 0, n);
      } while (n == buf.length);
      out.close();
    } finally {
      def.end();
    }
  }
}
