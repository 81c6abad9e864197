package pushbench.jmeter;

// JUnit of the mux engine's request bytes (MuxConfig): a pull's request assembled from its fixed parts
// (pullRequest) is byte for byte the one request() builds from the whole body, for cursors of every length
// (the Content-Length's digits crossing a power of ten) and of non-ASCII characters, and the head is
// PushClient's (with and without a Content-Type).

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class MuxConfigRequestTest {
  private static MuxConfig pull(String contentType) {
    return MuxConfig.parse("request", "127.0.0.1", "8080", "POST", "/request", contentType,
        "{\"type\":\"pull\",\"events\":[\"event1\"],\"cursor\":", "1000", "1000", "10", "0", "5", "pull", "1000", "false", "1000", "0");
  }

  @Test
  void aPullsAssembledRequestIsTheOneRequestBuildsFromItsWholeBody() {
    for (String contentType : new String[] {"application/json", ""}) {
      MuxConfig c = pull(contentType);
      StringBuilder cursor = new StringBuilder("{");
      for (int n = 0; n < 120; n++) {
        String cur = cursor + "}";
        assertArrayEquals(c.request(c.body + cur + "}"), c.pullRequest(cur), "cursor " + cur);
        cursor.append(n % 7 == 3 ? "\"é\":" : "\"e" + n + "\":").append(n).append(n % 2 == 0 ? "," : "");
      }
      String head = new String(c.pullRequest("{}"), StandardCharsets.ISO_8859_1);
      org.junit.jupiter.api.Assertions.assertTrue(head.startsWith("POST /request HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
          + (contentType.isEmpty() ? "" : "Content-Type: " + contentType + "\r\n") + "Content-Length: "), head);
    }
  }
}
