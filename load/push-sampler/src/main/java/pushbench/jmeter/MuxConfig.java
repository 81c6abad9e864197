package pushbench.jmeter;

// The settings of the multiplexing engine (MuxEngine), parsed and checked once: MuxSampler builds it from
// its TestBean strings (parse), tests set the fields directly. Times are milliseconds; `connections` counts
// the connections of the whole engine (every mux thread together), numbered 0..connections-1.
// Type SSE (docs/protocol.md "Server-Sent Events") is a GET of `path`, which carries the subscription in
// its query (`/request?type=sse&events=event1`); `body` is not sent. Its request asks for
// text/event-stream and, on a reconnection, names the last event id the connection got (Last-Event-ID).

import java.nio.charset.StandardCharsets;
import java.util.Locale;

final class MuxConfig {
  enum Type { COMET, POLL, PULL, SSE }

  /** SSE: the reconnection time until the server gives one (`retry:`), as EventSource's default. */
  static final int SSE_RETRY_MS = 3000;

  String host = "127.0.0.1";
  int port = 8080;
  String method = "POST";
  String path = "/request";
  String contentType = "application/json";
  /** The request body; for pull, the body's head up to the cursor (the cursor and "}" follow). */
  String body = "";
  int connectTimeoutMs = 30000;
  /** The longest silence accepted on a connection with a request in flight; 0: none. */
  int responseTimeoutMs = 60000;
  int connections = 1;
  long rampupMs;
  long durationMs = 60000;
  Type type = Type.COMET;
  int pullIntervalMs = 1000;
  boolean failOnTimeout;
  int summaryIntervalMs = 1000;
  /** After duration + responseTimeout + this, whatever is still open is closed as an error. */
  long deadlineGraceMs = 10000;
  /** The sample label of every answer (the sampler's name). */
  String label = "request";
  /** B lines name connection i's thread prefix + (i + 1), the shape JMeter gives per-connection threads. */
  String threadPrefix = "Request 1-";

  /** The request's bytes (head and body) for a body. */
  byte[] request(String bodyText) {
    byte[] b = bodyText.getBytes(StandardCharsets.UTF_8);
    byte[] head = PushClient.requestHead(host, port, method, path, b.length, contentType);
    byte[] all = new byte[head.length + b.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(b, 0, all, head.length, b.length);
    return all;
  }

  /** An SSE request's bytes: lastEventId, when not null or empty, as its Last-Event-ID (ASCII bytes). */
  byte[] sseRequest(byte[] lastEventId) {
    // ISO-8859-1 maps each byte to one char and back, so the id's bytes go out as they came
    String resume = lastEventId == null || lastEventId.length == 0 ? ""
        : "Last-Event-ID: " + new String(lastEventId, StandardCharsets.ISO_8859_1) + "\r\n";
    return ("GET " + path + " HTTP/1.1\r\nHost: " + host + ':' + port
        + "\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\n" + resume
        + "Connection: keep-alive\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
  }

  /** The TestBean strings, checked; a bad value throws IllegalArgumentException naming the property. */
  static MuxConfig parse(String label, String host, String port, String method, String path, String contentType,
                         String body, String connectTimeout, String responseTimeout, String connections,
                         String rampup, String duration, String requestType, String pullInterval,
                         String failOnTimeout, String summaryInterval) {
    MuxConfig c = new MuxConfig();
    c.label = label == null || label.isEmpty() ? "request" : label;
    c.host = required("host", host);
    c.port = (int) whole("port", port, 1, 65535);
    c.method = required("method", method).toUpperCase(Locale.ROOT);
    c.path = required("path", path);
    if (!c.path.startsWith("/")) throw new IllegalArgumentException("path must start with /: '" + c.path + "'");
    c.contentType = contentType == null ? "" : contentType.trim();
    c.body = body == null ? "" : body;
    c.connectTimeoutMs = (int) whole("connectTimeout", connectTimeout, 0, Integer.MAX_VALUE);
    c.responseTimeoutMs = (int) whole("responseTimeout", responseTimeout, 0, Integer.MAX_VALUE);
    c.connections = (int) whole("connections", connections, 1, 1_000_000);
    c.rampupMs = seconds("rampup", rampup, 0);
    c.durationMs = seconds("duration", duration, 1);
    c.type = type(requestType);
    if (c.type == Type.SSE && !c.method.equals("GET")) {
      throw new IllegalArgumentException("requestType sse is a GET (the subscription in the path's query), not " + c.method);
    }
    c.pullIntervalMs = (int) whole("pullInterval", pullInterval, 0, Integer.MAX_VALUE);
    c.failOnTimeout = bool("failOnTimeout", failOnTimeout);
    c.summaryIntervalMs = (int) whole("summaryInterval", summaryInterval, 10, 3_600_000);
    return c;
  }

  private static String required(String what, String value) {
    String v = value == null ? "" : value.trim();
    if (v.isEmpty()) throw new IllegalArgumentException(what + " is empty");
    return v;
  }

  static long whole(String what, String value, long min, long max) {
    String v = value == null ? "" : value.trim();
    long n;
    try { n = Long.parseLong(v); } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " is not a whole number: '" + v + "'");
    }
    if (n < min || n > max) throw new IllegalArgumentException(what + " out of range " + min + ".." + max + ": " + n);
    return n;
  }

  // Seconds (a decimal is allowed: 0.5) as milliseconds, at least minMs and at most 30 days.
  private static long seconds(String what, String value, long minMs) {
    String v = value == null ? "" : value.trim();
    double s;
    try { s = Double.parseDouble(v); } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " is not a number of seconds: '" + v + "'");
    }
    long ms = Math.round(s * 1000);
    if (!(s >= 0) || ms < minMs || ms > 30L * 86_400_000) {
      throw new IllegalArgumentException(what + " out of range (seconds): " + v);
    }
    return ms;
  }

  private static Type type(String value) {
    String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    switch (v) {
      case "comet": return Type.COMET;
      case "poll": return Type.POLL;
      case "pull": return Type.PULL;
      case "sse": return Type.SSE;
      default: throw new IllegalArgumentException("requestType must be comet, poll, pull or sse: '" + v + "'");
    }
  }

  private static boolean bool(String what, String value) {
    String v = value == null ? "" : value.trim();
    if (v.equalsIgnoreCase("true")) return true;
    if (v.equalsIgnoreCase("false")) return false;
    throw new IllegalArgumentException(what + " must be true or false: '" + v + "'");
  }
}
