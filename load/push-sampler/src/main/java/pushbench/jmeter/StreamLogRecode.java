package pushbench.jmeter;

// An engine's stream log written with LZ4 (push-<n>.tsv.lz4, StreamLog's live codec) recoded to the gzip
// every reader of the logs takes (push-<n>.tsv.gz, gzip BEST_SPEED; docs/run-layout.md "Stream logs"):
// by StreamLog when the log closes, and by this main for the logs of an engine that never closed them
// (killed, crashed; host/archive.sh tar runs it before it packs the responses):
//
//   java -cp "$JMETER_HOME/lib/ext/*" pushbench.jmeter.StreamLogRecode <push-n.tsv.lz4>...
//
// Each file goes to its .gz beside it (written to <name>.gz.part, then renamed; the .lz4 then deleted),
// keeping every whole block of its LZ4 frames: a last block cut short (an engine killed while writing it)
// is dropped, its bytes in the file counted, and so are the bytes after the last line end (a line a 64 KB
// block boundary cut: blocks end at a flush between whole lines or wherever 64 KB of lines filled them).
// A file that ends after a whole block without its end mark (an engine killed between two blocks) loses
// nothing. A file that does not end with its frame's end mark (an empty one too: the engine never closed
// it) is a log cut short, and its .gz says so as a gzip log cut short does: it ends at a sync point without
// the gzip trailer, so the analysis counts it among the damaged stream logs ("cut short (no gzip trailer)").
// One line per file on stdout:
//   <file.lz4> -> <file.gz>: <n> lines kept, <n> bytes of a cut block dropped, <n> bytes of a cut line dropped
// followed by ", cut short: no end mark (the .gz ends without its gzip trailer)" for a cut one.
// A file that cannot be recoded (no LZ4 frame, a damaged block, its .gz already there, a full disk) stays
// as it is, no .part left, the reason on stderr. Exit 0 when every file was recoded, 1 when one was not,
// 2 on usage. Only this class and FastGzip are loaded (no JMeter, no logging): lib/ext suffices.

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.function.Supplier;

import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.StreamingXXHash32;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;

public final class StreamLogRecode {
  private static final int MAGIC = 0x184D2204;

  private StreamLogRecode() { }

  /**
   * One recoded file: the .gz written, its lines, the bytes of the .lz4 file dropped with a block cut short
   * (from that block's size field to the file's end), the bytes of lines dropped after the last line end,
   * and whether the file was cut short (it did not end with its frame's end mark; its .gz has no trailer).
   */
  public record Result(Path from, Path to, long lines, long cutBlockBytes, long cutLineBytes, boolean cut) {
    /** The line main prints. */
    public String line() {
      return from + " -> " + to + ": " + lines + " lines kept, " + cutBlockBytes + " bytes of a cut block dropped, "
          + cutLineBytes + " bytes of a cut line dropped" + (cut ? ", cut short: no end mark (the .gz ends without its gzip trailer)" : "");
    }
  }

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** main's work: each file recoded, a line on out for each done, on err for each left; the exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0) {
      err.println("usage: java -cp \"$JMETER_HOME/lib/ext/*\" pushbench.jmeter.StreamLogRecode <push-n.tsv.lz4>...");
      return 2;
    }
    int failed = 0;
    for (String a : args) {
      Path file = Paths.get(a);
      try {
        out.println(recode(file).line());
      } catch (IOException e) {
        failed++;
        err.println(file + ": not recoded, kept as it is: " + e.getMessage());
      }
    }
    out.flush();
    return failed == 0 ? 0 : 1;
  }

  /** The .gz beside an .lz4 file: push-3.tsv.lz4 -> push-3.tsv.gz. */
  public static Path gzipOf(Path lz4) {
    String name = lz4.getFileName().toString();
    return lz4.resolveSibling(name.substring(0, name.length() - ".lz4".length()) + ".gz");
  }

  /**
   * Recodes lz4 (a name ending in .lz4) to its .gz (gzipOf) and deletes it. On failure (IOException) the
   * .lz4 stays, and no .gz or .part is left by this call.
   */
  public static Result recode(Path lz4) throws IOException {
    if (!lz4.getFileName().toString().endsWith(".lz4")) throw new IOException("not a .lz4 file name");
    Path gz = gzipOf(lz4);
    if (Files.exists(gz)) throw new IOException(gz + " exists already");
    Path part = gz.resolveSibling(gz.getFileName() + ".part");
    long size = Files.size(lz4);
    Result r;
    try (InputStream in = new BufferedInputStream(Files.newInputStream(lz4), 1 << 16);
         FastGzip out = new FastGzip(new BufferedOutputStream(Files.newOutputStream(part), 1 << 16), false)) {
      Decoder d = new Decoder(in, out);
      d.frames();
      if (!d.ended) out.markCut();
      r = new Result(lz4, gz, d.lines, size - d.wholeBytes, d.pendingLength, !d.ended);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(part);
      throw e instanceof IOException io ? io : new IOException(e.toString(), e);
    }
    Files.move(part, gz, StandardCopyOption.ATOMIC_MOVE);
    Files.delete(lz4);
    return r;
  }

  /**
   * lz4-java's native (JNI) factories, else its fastest Java ones. LZ4Factory.fastestInstance() tries the
   * native library only when lz4-java was loaded by the system class loader, and JMeter loads lib/ext's jars
   * with a class loader of its own; the native compressor costs a quarter of the Java one's CPU per byte
   * (bench/log-codec-cost.sh, docs/engine.md "The stream log's codec").
   */
  static final LZ4Factory LZ4 = nativeOr(LZ4Factory::nativeInstance, LZ4Factory::fastestJavaInstance);
  static final XXHashFactory XXHASH = nativeOr(XXHashFactory::nativeInstance, XXHashFactory::fastestJavaInstance);

  private static <T> T nativeOr(Supplier<T> nativeOne, Supplier<T> javaOne) {
    try {
      return nativeOne.get();
    } catch (Throwable notLoaded) {   // no native library for this platform, or it cannot load
      return javaOne.get();
    }
  }

  /**
   * Reads LZ4 frames (the LZ4 frame format: magic, descriptor, blocks up to an end mark) and writes the
   * whole lines of their whole blocks to out.
   */
  private static final class Decoder {
    private final InputStream in;
    private final OutputStream out;
    private final LZ4SafeDecompressor lz4 = LZ4.safeDecompressor();
    private final XXHash32 hash = XXHASH.hash32();
    private final byte[] word = new byte[4];
    private byte[] block = new byte[0];
    private byte[] data = new byte[0];
    private byte[] pending = new byte[1 << 12];   // the bytes after the last line end so far
    int pendingLength;
    long position;      // bytes of the file read
    long wholeBytes;    // bytes of the file up to the end of its last whole block (or frame part)
    long lines;
    boolean ended;      // the file ends with a whole frame (its end mark and checksum): the log was closed

    Decoder(InputStream in, OutputStream out) {
      this.in = in;
      this.out = out;
    }

    // Frame after frame until the file ends; a frame cut short ends the file.
    void frames() throws IOException {
      while (true) {
        long frameStart = position;
        int got = readFully(word, 4);
        if (got != 4) {   // the file ends after a frame (or is empty), or in a magic number
          if (got > 0) ended = false;
          return;
        }
        if (le32(word, 0) != MAGIC) throw new IOException("no LZ4 frame at byte " + frameStart);
        ended = false;
        if (!frame()) return;
        ended = true;
        wholeBytes = position;
      }
    }

    // One frame after its magic number; false when the file ended inside it (what came whole is written).
    private boolean frame() throws IOException {
      byte[] descriptor = new byte[15];
      if (readFully(descriptor, 2) != 2) return false;
      int flg = descriptor[0] & 0xFF;
      int bd = descriptor[1] & 0xFF;
      if ((flg >>> 6) != 1) throw new IOException("LZ4 frame version " + (flg >>> 6) + " (1 expected)");
      if ((flg & 1) != 0) throw new IOException("an LZ4 frame with a dictionary");
      boolean blockChecksum = (flg & 0x10) != 0;
      boolean contentSize = (flg & 0x08) != 0;
      boolean contentChecksum = (flg & 0x04) != 0;
      int maxBlock = switch ((bd >>> 4) & 7) {
        case 4 -> 1 << 16;
        case 5 -> 1 << 18;
        case 6 -> 1 << 20;
        case 7 -> 1 << 22;
        default -> throw new IOException("LZ4 block size code " + ((bd >>> 4) & 7));
      };
      int length = 2;
      if (contentSize) {
        byte[] size = new byte[8];
        if (readFully(size, 8) != 8) return false;
        System.arraycopy(size, 0, descriptor, length, 8);
        length += 8;
      }
      int hc = in.read();
      if (hc < 0) return false;
      position++;
      if (hc != ((hash.hash(descriptor, 0, length, 0) >>> 8) & 0xFF)) throw new IOException("damaged LZ4 frame descriptor");
      wholeBytes = position;
      if (block.length < maxBlock + 4) block = new byte[maxBlock + 4];
      if (data.length < maxBlock) data = new byte[maxBlock];
      StreamingXXHash32 content = contentChecksum ? XXHASH.newStreamingHash32(0) : null;
      while (true) {
        long blockStart = position;
        if (readFully(word, 4) != 4) return false;   // cut (or ended) before the block's size
        int sizeWord = le32(word, 0);
        if (sizeWord == 0) break;                    // the end mark
        boolean stored = (sizeWord & 0x80000000) != 0;
        int size = sizeWord & 0x7FFFFFFF;
        if (size > maxBlock) throw new IOException("damaged LZ4 block at byte " + blockStart + " (" + size + " bytes)");
        int with = size + (blockChecksum ? 4 : 0);
        if (readFully(block, with) != with) return false;
        if (blockChecksum && le32(block, size) != hash.hash(block, 0, size, 0)) {
          throw new IOException("LZ4 block at byte " + blockStart + " fails its checksum");
        }
        int n;
        if (stored) {
          System.arraycopy(block, 0, data, 0, size);
          n = size;
        } else {
          try {
            n = lz4.decompress(block, 0, size, data, 0, maxBlock);
          } catch (LZ4Exception e) {
            throw new IOException("damaged LZ4 block at byte " + blockStart + ": " + e.getMessage());
          }
        }
        if (content != null) content.update(data, 0, n);
        lines(data, n);
        wholeBytes = position;
      }
      if (contentChecksum) {
        if (readFully(word, 4) != 4) return false;
        if (le32(word, 0) != content.getValue()) throw new IOException("LZ4 frame fails its content checksum");
      }
      return true;
    }

    // The whole lines of n bytes of data (with what was pending before them) to out; the rest pending.
    private void lines(byte[] b, int n) throws IOException {
      int last = -1;
      for (int i = 0; i < n; i++) {
        if (b[i] == '\n') {
          lines++;
          last = i;
        }
      }
      if (last < 0) {
        keep(b, 0, n);
        return;
      }
      if (pendingLength > 0) out.write(pending, 0, pendingLength);
      out.write(b, 0, last + 1);
      pendingLength = 0;
      keep(b, last + 1, n - last - 1);
    }

    private void keep(byte[] b, int off, int n) {
      if (pendingLength + n > pending.length) pending = Arrays.copyOf(pending, Math.max(pending.length * 2, pendingLength + n));
      System.arraycopy(b, off, pending, pendingLength, n);
      pendingLength += n;
    }

    // n bytes into b; fewer (the bytes there were) when the file ended first.
    private int readFully(byte[] b, int n) throws IOException {
      int got = 0;
      while (got < n) {
        int r = in.read(b, got, n - got);
        if (r < 0) break;
        got += r;
      }
      position += got;
      return got;
    }

    private static int le32(byte[] b, int off) {
      return (b[off] & 0xFF) | (b[off + 1] & 0xFF) << 8 | (b[off + 2] & 0xFF) << 16 | (b[off + 3] & 0xFF) << 24;
    }
  }
}
