package pushbench.jmeter;

// JUnit of the push-style answer parser: the same records whatever the slicing of the bytes (every split
// into two and three pieces, byte by byte), for chunked answers with an interim 100, chunk extensions and
// trailers, Content-Length and read-to-close bodies (the last record of a Content-Length body cut from the
// read that ends it, not copied); bytes beyond an answer are left; a premature end
// counts the cut bytes; a parser waiting between reads holds no buffer once a spanning record ended.
// An event stream (SSE) gives the same events, ids and retry whatever the slicing (every split into three
// pieces, chunk boundaries inside an event and inside its blank line), and an event cut at the end is none.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class AnswerParserTest {
  private static final String CHUNKED = "HTTP/1.1 100 Continue\r\n\r\n"
      + "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\ntransfer-encoding:  Chunked \r\n\r\n"
      + "a;ext=1\r\n{\"a\":1}\r\n{\r\n" + "7\r\n\"b\":2}\n\r\n" + "3\r\n\n\n\n\r\n" + "6\r\n{\"c\":3\r\n" + "1\r\n}\r\n"
      + "0\r\nTrailer: x\r\n\r\n";
  private static final List<String> CHUNKED_RECORDS = List.of("{\"a\":1}", "{\"b\":2}", "{\"c\":3}");

  private final List<String> records = new ArrayList<>();

  private AnswerParser parser() {
    AnswerParser p = new AnswerParser(false);
    records.clear();
    p.start((micros, b, off, len) -> records.add(new String(b, off, len, StandardCharsets.UTF_8)), false);
    return p;
  }

  // Feeds the pieces in order; returns the bytes the parser left after the answer's end.
  private static int feed(AnswerParser p, byte[] all, int... cuts) throws IOException {
    int from = 0;
    for (int i = 0; i <= cuts.length; i++) {
      int to = i < cuts.length ? cuts[i] : all.length;
      int used = p.feed(all, from, to - from, i);
      if (p.done()) return all.length - from - used;
      from = to;
    }
    return 0;
  }

  @Test
  void everySplitGivesTheSameRecords() throws IOException {
    byte[] all = CHUNKED.getBytes(StandardCharsets.ISO_8859_1);
    for (int a = 0; a <= all.length; a++) {
      for (int b = a; b <= all.length; b++) {
        AnswerParser p = parser();
        assertEquals(0, feed(p, all, a, b));
        assertTrue(p.done(), "done at " + a + "/" + b);
        assertEquals(CHUNKED_RECORDS, records, "split at " + a + "/" + b);
        assertEquals(200, p.status);
        assertEquals("application/x-ndjson", p.contentType);
        assertEquals(27, p.bodyBytes);
      }
    }
    int[] everyByte = new int[all.length - 1];
    for (int i = 0; i < everyByte.length; i++) everyByte[i] = i + 1;
    AnswerParser p = parser();
    feed(p, all, everyByte);
    assertEquals(CHUNKED_RECORDS, records, "byte by byte");
  }

  @Test
  void contentLengthAnswerLeavesTheBytesBeyondIt() throws IOException {
    byte[] all = "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n{\"a\":1}HTTP/1.1".getBytes(StandardCharsets.ISO_8859_1);
    AnswerParser p = parser();
    assertEquals(8, feed(p, all));
    assertEquals(List.of("{\"a\":1}"), records, "a last record without \\n is complete at the body's end");
    assertTrue(!p.closeAfter);
  }

  @Test
  void aContentLengthBodysLastRecordIsCutFromTheReadThatEndsItWhateverTheSlicing() throws IOException {
    // a pull's answer: the last record has no "\n"; read in one piece it goes to the sink from the read's own
    // bytes (no copy), with that read's stamp; split anywhere it is joined as before; a WHOLE body likewise
    byte[] all = "HTTP/1.1 200 OK\r\nContent-Length: 17\r\n\r\n{\"a\":1}\r\n{\"b\":22}".getBytes(StandardCharsets.ISO_8859_1);
    for (int framing : new int[] {RecordCutter.LINES, RecordCutter.WHOLE}) {
      List<String> expected = framing == RecordCutter.LINES ? List.of("{\"a\":1}", "{\"b\":22}") : List.of("{\"a\":1}\r\n{\"b\":22}");
      for (int cut = 1; cut < all.length; cut++) {
        AnswerParser p = new AnswerParser(false);
        List<String> got = new ArrayList<>();
        List<Long> stamps = new ArrayList<>();
        List<Boolean> ownBytes = new ArrayList<>();
        p.start((micros, b, off, len) -> {
          got.add(new String(b, off, len, StandardCharsets.UTF_8));
          stamps.add(micros);
          ownBytes.add(b == all);
        }, false);
        p.frame(framing, null);
        assertEquals(0, feed(p, all, cut));
        assertTrue(p.done());
        assertEquals(expected, got, "framing " + framing + ", split at " + cut);
        assertEquals(1L, stamps.get(stamps.size() - 1), "the last record's stamp is the read that ended it");
        int lastStarts = framing == RecordCutter.LINES ? all.length - 8 : all.length - 17;   // {"b":22}, or the whole body
        assertEquals(cut <= lastStarts, ownBytes.get(ownBytes.size() - 1),
            "the last record is passed from the read's own bytes exactly when it lies whole in it (split at " + cut + ")");
      }
    }
  }

  @Test
  void readToCloseBodyEndsAtTheConnectionsEnd() throws IOException {
    AnswerParser p = parser();
    feed(p, "HTTP/1.0 200 OK\r\n\r\n{\"a\":1}\n{\"b\"".getBytes(StandardCharsets.ISO_8859_1));
    assertTrue(!p.done());
    p.endOfInput(5);
    assertTrue(p.done() && p.closeAfter);
    assertEquals(List.of("{\"a\":1}", "{\"b\""), records);
  }

  @Test
  void prematureEndCountsTheCutRecord() throws IOException {
    AnswerParser p = parser();
    feed(p, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{\"a\":1}\n{\"b\"".getBytes(StandardCharsets.ISO_8859_1));
    EOFException e = assertThrows(EOFException.class, () -> p.endOfInput(5));
    assertEquals("Premature end of chunk coded message body", e.getMessage());
    assertEquals(4, p.cutBytes);
    assertEquals(1, p.records);
  }

  @Test
  void badFramingIsAnError() {
    assertThrows(IOException.class, () -> feed(parser(), "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
        .getBytes(StandardCharsets.ISO_8859_1)));
    assertThrows(IOException.class, () -> feed(parser(), "SSH-2.0\r\n".getBytes(StandardCharsets.ISO_8859_1)));
    assertThrows(IOException.class, () -> feed(parser(), "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"
        .getBytes(StandardCharsets.ISO_8859_1)));
  }

  @Test
  void aRecordLongerThanTheBoundBreaksTheAnswer() throws IOException {
    AnswerParser p = parser();
    feed(p, "HTTP/1.1 200 OK\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    byte[] piece = new byte[64 * 1024];
    java.util.Arrays.fill(piece, (byte) 'x');
    IOException e = assertThrows(IOException.class, () -> {
      for (int i = 0; i < 20; i++) p.feed(piece, 0, piece.length, i);
    });
    assertTrue(e.getMessage().startsWith("record longer than"), e.getMessage());
  }

  // An event stream in chunks whose boundaries fall inside a field, a CRLF and a blank line; the last
  // event is cut by the body's end.
  private static final String SSE = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream;charset=UTF-8\r\n"
      + "Transfer-Encoding: chunked\r\n\r\n"
      + chunk(": hi\nretry: 1500\n\nid") + chunk(": e1:1\r\ndata: {\"a\":1}\r\n\r")
      + chunk("\nid: e1:2\ndata: {\"b\":2}\n\n") + chunk("id: e1:3\nd") + "0\r\n\r\n";

  private static String chunk(String text) {
    return Integer.toHexString(text.length()) + "\r\n" + text + "\r\n";
  }

  @Test
  void anEventStreamGivesTheSameEventsWhateverTheSlicing() throws IOException {
    byte[] all = SSE.getBytes(StandardCharsets.ISO_8859_1);
    for (int a = 0; a <= all.length; a++) {
      for (int b = a; b <= all.length; b++) {
        List<String> ids = new ArrayList<>();
        long[] retry = {-1};
        records.clear();
        AnswerParser.EventSink sink = new AnswerParser.EventSink() {
          @Override public void record(long micros, byte[] bytes, int off, int len) {
            records.add(new String(bytes, off, len, StandardCharsets.UTF_8));
          }

          @Override public void eventId(byte[] bytes, int off, int len) {
            ids.add(new String(bytes, off, len, StandardCharsets.UTF_8));
          }

          @Override public void retry(long ms) { retry[0] = ms; }
        };
        AnswerParser p = new AnswerParser(false);
        p.start(sink, false, sink);
        assertEquals(0, feed(p, all, a, b));
        assertTrue(p.done(), "done at " + a + "/" + b);
        assertEquals(List.of("{\"a\":1}", "{\"b\":2}"), records, "split at " + a + "/" + b);
        assertEquals(List.of("e1:1", "e1:2"), ids, "the id of each event dispatched; e1:3 was cut: " + a + "/" + b);
        assertEquals(1500, retry[0]);
        assertEquals(2, p.records);
        assertEquals(10, p.cutBytes, "the event the body ended inside");
      }
    }
  }
}
