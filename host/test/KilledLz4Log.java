// A stream log as an engine killed during its load leaves it, for host/test/archive.test.js: the engine's
// StreamLog (load/push-sampler) with the LZ4 codec writes <samples> samples (B, one record, E) into <dir>
// (push-1.tsv.lz4), its writer's flush ends the last block, and the JVM halts without closing the log (no
// recode, no end mark). The text of the lines written goes to <expected>. Run as a single source file:
//   java -cp "$JMETER_HOME/lib/*:$JMETER_HOME/lib/ext/*" host/test/KilledLz4Log.java <dir> <samples> <expected>

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import pushbench.jmeter.StreamLog;

public class KilledLz4Log {
  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args[0]);
    int samples = Integer.parseInt(args[1]);
    StreamLog log = StreamLog.of(dir, 0, StreamLog.Codec.LZ4);
    StreamLog.Batch batch = log.batch();
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < samples; i++) {
      long id = log.nextSampleId();
      long us = 1_795_839_947_000_000L + i * 1000L;
      batch.begin(us, id, "Request 1-", i % 10, "request");
      text.append("B\t").append(us).append('\t').append(id).append("\tRequest 1-").append(i % 10).append("\trequest\n");
      String record = "{\"seq\":" + i + ",\"data\":\"" + Long.toString(id * 2654435761L, 36).repeat(8) + "\"}";
      byte[] b = record.getBytes(StandardCharsets.UTF_8);
      batch.record(us + 10, id, b, 0, b.length);
      text.append("R\t").append(us + 10).append('\t').append(id).append('\t').append(record).append('\n');
      batch.end(us + 20, id, "200", true, 1, b.length, 0, us + 1, "OK", "", us + 5);
      text.append("E\t").append(us + 20).append('\t').append(id).append("\t200\t1\t1\t").append(b.length).append("\t0\t")
          .append(us + 1).append("\tOK\t\t").append(us + 5).append('\n');
    }
    batch.submit();
    Thread.sleep(1700);   // the writer's flush (once a second): every line in the file
    Files.writeString(Paths.get(args[2]), text);
    Runtime.getRuntime().halt(0);   // as a killed engine: no close
  }
}
