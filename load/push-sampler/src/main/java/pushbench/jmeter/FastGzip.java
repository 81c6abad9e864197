package pushbench.jmeter;

// gzip at the fastest level (BEST_SPEED), the stream logs' format at rest (docs/run-layout.md "Stream
// logs"): the engine's CPU belongs to the load. StreamLog writes it live with the gzip codec (sync-flushed
// on flush(), so a reader following the growing file gets every line written so far); StreamLogRecode
// writes it from an LZ4 log after the load.

import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

final class FastGzip extends GZIPOutputStream {
  /** syncFlush: flush() ends the deflate block (a sync point) instead of only flushing out. */
  FastGzip(OutputStream out, boolean syncFlush) throws IOException {
    super(out, 1 << 16, syncFlush);
    def.setLevel(Deflater.BEST_SPEED);
  }
}
