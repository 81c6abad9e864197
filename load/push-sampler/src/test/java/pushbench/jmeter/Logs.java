package pushbench.jmeter;

// Reading stream logs back in tests: every push-<n>.tsv.gz of a directory in file order, gunzipped and
// split into tab-separated fields, and the B/R/E lines grouped by sample id; an LZ4 log still being written
// (push-<n>.tsv.lz4) read as a killed engine leaves it, through a copy recoded by StreamLogRecode.

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

final class Logs {
  private Logs() { }

  /** The log files of dir, push-1 first. */
  static List<Path> files(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().matches("push-\\d+\\.tsv\\.gz"))
          .sorted(Comparator.comparingInt(p -> Integer.parseInt(p.getFileName().toString().replaceAll("\\D", ""))))
          .collect(Collectors.toList());
    }
  }

  /** Every line of dir's logs once every open log is closed (the engine's run is over). */
  static List<String[]> closedLines(Path dir) throws IOException {
    StreamLog.closeAll();
    return lines(dir);
  }

  /** The records (R lines' fourth field), in order. */
  static List<String> records(List<String[]> lines) {
    return kind(lines, "R").stream().map(l -> l[3]).collect(Collectors.toList());
  }

  /** Every line of every (closed) log file of dir. */
  static List<String[]> lines(Path dir) throws IOException {
    List<String[]> out = new ArrayList<>();
    for (Path f : files(dir)) out.addAll(lines(f, false));
    return out;
  }

  /**
   * The lines of one file. unfinished: a file without its trailer (a killed engine's), read up to the end
   * of its data and cut to its last complete line.
   */
  static List<String[]> lines(Path file, boolean unfinished) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      byte[] b = new byte[8192];
      for (int n; (n = in.read(b)) > 0; ) bytes.write(b, 0, n);
    } catch (EOFException e) {
      if (!unfinished) throw e;
    }
    String text = bytes.toString(StandardCharsets.UTF_8);
    int end = text.lastIndexOf('\n');
    List<String[]> out = new ArrayList<>();
    if (end < 0) return out;
    for (String line : text.substring(0, end).split("\n", -1)) out.add(line.split("\t", -1));
    return out;
  }

  /** The .lz4 files of dir (an LZ4 log's, before its close recodes them). */
  static List<Path> lz4Files(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".lz4")).sorted().collect(Collectors.toList());
    }
  }

  /** The whole lines of an LZ4 log file as it is now (a copy of it recoded in copyDir, which must exist). */
  static List<String[]> lz4Lines(Path file, Path copyDir) throws IOException {
    Path copy = copyDir.resolve(file.getFileName());
    Files.copy(file, copy);
    return lines(StreamLogRecode.recode(copy).to(), false);
  }

  /** The lines of each sample id, in log order. */
  static Map<String, List<String[]>> bySample(List<String[]> lines) {
    Map<String, List<String[]>> out = new LinkedHashMap<>();
    for (String[] l : lines) out.computeIfAbsent(l[2], k -> new ArrayList<>()).add(l);
    return out;
  }

  static List<String[]> kind(List<String[]> lines, String kind) {
    return lines.stream().filter(l -> l[0].equals(kind)).collect(Collectors.toList());
  }
}
