package pushbench.jmeter;

// JUnit of a record's flags as the plan's assertions judge it (MuxConnection.flags): "error" and, when
// asked, "timeout" found in one pass exactly where String.contains finds them, over random records of the
// words' letters (overlaps, prefixes, a word cut by the record's end) and the protocol's real records.

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class MuxConnectionFlagsTest {
  private static int expected(String s, boolean timeout) {
    return (s.contains("error") ? MuxConnection.HAS_ERROR : 0) | (timeout && s.contains("timeout") ? MuxConnection.HAS_TIMEOUT : 0);
  }

  @Test
  void theFlagsAreWhereTheWordsAre() {
    SplittableRandom random = new SplittableRandom(3);
    String letters = "errotimeu\"{";
    for (int n = 0; n < 200_000; n++) {
      StringBuilder b = new StringBuilder();
      for (int len = random.nextInt(24); len > 0; len--) b.append(letters.charAt(random.nextInt(letters.length())));
      if (random.nextInt(20) == 0) b.insert(random.nextInt(b.length() + 1), random.nextBoolean() ? "error" : "timeout");
      String s = b.toString();
      byte[] bytes = ("xx" + s + "yy").getBytes(StandardCharsets.US_ASCII);
      for (boolean timeout : new boolean[] {false, true}) {
        assertEquals(expected(s, timeout), MuxConnection.flags(bytes, 2, 2 + s.length(), timeout), "'" + s + "' timeout " + timeout);
      }
    }
    byte[] rec = "{\"response\":{\"timeout\":{\"duration\":100}}}".getBytes(StandardCharsets.US_ASCII);
    assertEquals(MuxConnection.HAS_TIMEOUT, MuxConnection.flags(rec, 0, rec.length, true));
    assertEquals(0, MuxConnection.flags(rec, 0, rec.length, false));
    byte[] err = "{\"error\":{\"status\":500,\"message\":\"timeout\"}}".getBytes(StandardCharsets.US_ASCII);
    assertEquals(MuxConnection.HAS_ERROR | MuxConnection.HAS_TIMEOUT, MuxConnection.flags(err, 0, err.length, true));
  }
}
