package pushbench.jmeter;

// The settings of the multiplexing engine (MuxEngine), parsed and checked once: MuxSampler builds it from
// its TestBean strings (parse), tests set the fields directly. Times are milliseconds; `connections` counts
// the connections of the whole engine (every mux thread together), numbered 0..connections-1.
// Type SSE (docs/protocol.md "Server-Sent Events") is a GET of `path`, which carries the subscription in
// its query (`/request?type=sse&events=event1`); `body` is not sent. Its request asks for
// text/event-stream and, on a reconnection, names the last event id the connection got (Last-Event-ID).
// Type WS (docs/protocol.md "WebSocket", issue #38 item 3) is an upgrade of a GET of `path` (/request); its
// subscription, the first message, is `body` ({"type":"ws","events":[...]}, the plan's REQUEST_BODY), to
// which a reconnection adds the cursor it resumes from.
// A target run (issue #47, docs/targets.md) has `target`, the parsed target.spec: the server, the requests
// and the framing are the spec's (host and port those of its subscribe URL), the type its transport's
// (stream as comet's held stream, sse, ws, poll, pull; pull's interval the spec's), and the built-in
// protocol's checks of requestType, method, path and body do not apply.

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

final class MuxConfig {
  enum Type { COMET, POLL, PULL, SSE, WS }

  /** SSE: the reconnection time until the server gives one (`retry:`), as EventSource's default. */
  static final int SSE_RETRY_MS = 3000;
  /** WS: the subscription when the body is empty (no event). */
  static final String WS_NO_EVENTS = "{\"type\":\"ws\",\"events\":[]}";

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
  /**
   * WS, and a target's held stream: the reconnection time after a stream ended (neither has a retry field:
   * SSE's default).
   */
  int wsRetryMs = SSE_RETRY_MS;
  /**
   * Read coalescing (MuxEngine): a select that would wait starts at least this many µs after the previous
   * one started; 0 selects at once. The JVM's system property pushbench.mux.coalesceMicros, 250 by default
   * (docs/engine.md "Read coalescing").
   */
  long coalesceMicros = COALESCE_MICROS;
  static final long COALESCE_MICROS = Math.max(0, Long.getLong("pushbench.mux.coalesceMicros", 250));
  /**
   * How long from the load's start the timeout sweep runs at least once a second (MuxEngine.sweep,
   * SWEEP_AT_MOST_EVERY_MS): the seconds in which C2 compiles the selector loop. After them a sweep comes
   * only when a timeout can fall due (docs/engine.md "Timeouts swept when due").
   */
  long sweepBoundedForMs = SWEEP_BOUNDED_FOR_MS;
  static final long SWEEP_BOUNDED_FOR_MS = 30_000;
  /** SSE and WS: the share (0..1) of open streams the client drops each second (MuxEngine's churn); 0: none. */
  double churnShare;
  /** A target run's spec (docs/targets.md "Inside"); null: the built-in protocol. */
  TargetSpec target;
  /** A built-in run over TLS (the front's CA trusted, the host's name checked); null: plain TCP. */
  TlsConfig tls;
  private byte[][] wsEvents;

  /** The request's bytes (head and body) for a body. */
  byte[] request(String bodyText) {
    byte[] b = bodyText.getBytes(StandardCharsets.UTF_8);
    byte[] head = PushClient.requestHead(host, port, method, path, b.length, contentType);
    byte[] all = new byte[head.length + b.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(b, 0, all, head.length, b.length);
    return all;
  }

  /**
   * A pull's request: the body `body` + cursor + "}" with request()'s head, assembled into one array from
   * the head's and the body's fixed parts (made at the first pull), so a pull builds no strings.
   */
  byte[] pullRequest(String cursor) {
    if (pullHead == null) {
      pullHead = PushClient.headUpToLength(host, port, method, path, contentType).getBytes(StandardCharsets.ISO_8859_1);
      pullBodyHead = body.getBytes(StandardCharsets.UTF_8);
    }
    byte[] c = cursor.getBytes(StandardCharsets.UTF_8);
    int bodyLength = pullBodyHead.length + c.length + 1;
    int digits = Integer.toString(bodyLength).length();
    byte[] all = new byte[pullHead.length + digits + HEAD_AFTER_LENGTH.length + bodyLength];
    int at = put(all, 0, pullHead);
    for (int i = digits - 1, v = bodyLength; i >= 0; i--, v /= 10) all[at + i] = (byte) ('0' + v % 10);
    at = put(all, at + digits, HEAD_AFTER_LENGTH);
    at = put(all, at, pullBodyHead);
    at = put(all, at, c);
    all[at] = '}';
    return all;
  }

  private static final byte[] HEAD_AFTER_LENGTH = PushClient.HEAD_AFTER_LENGTH.getBytes(StandardCharsets.ISO_8859_1);
  private byte[] pullHead;       // pullRequest's: the head up to its Content-Length value
  private byte[] pullBodyHead;   // and the body up to the cursor

  private static int put(byte[] to, int at, byte[] from) {
    System.arraycopy(from, 0, to, at, from.length);
    return at + from.length;
  }

  /** An SSE request's bytes: lastEventId, when not null or empty, as its Last-Event-ID (ASCII bytes). */
  byte[] sseRequest(byte[] lastEventId) {
    // ISO-8859-1 maps each byte to one char and back, so the id's bytes go out as they came
    String resume = lastEventId == null || lastEventId.length == 0 ? ""
        : "Last-Event-ID: " + new String(lastEventId, StandardCharsets.ISO_8859_1) + "\r\n";
    return getRequest("Accept: text/event-stream\r\nCache-Control: no-cache\r\n" + resume + "Connection: keep-alive\r\n");
  }

  /** A WebSocket upgrade of `path` with this Sec-WebSocket-Key (RFC 6455 4.1; no subprotocol, no extension). */
  byte[] wsRequest(String key) {
    return getRequest(wsHeaders(key));
  }

  /** A WebSocket upgrade's header lines for this Sec-WebSocket-Key, each ending CRLF. */
  static String wsHeaders(String key) {
    return "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n";
  }

  /** A body-less GET of `path` with these header lines (each ending CRLF) after Host: its bytes, ISO-8859-1. */
  private byte[] getRequest(String headers) {
    return ("GET " + path + " HTTP/1.1\r\nHost: " + host + ':' + port + "\r\n" + headers + "\r\n")
        .getBytes(StandardCharsets.ISO_8859_1);
  }

  /** The WS subscription's event names (its "events" array of strings), as bytes, read once from the body. */
  byte[][] wsEvents() {
    if (wsEvents == null) {
      Matcher m = Pattern.compile("\"events\"\\s*:\\s*\\[([^\\]]*)\\]").matcher(wsBody());
      List<byte[]> names = new ArrayList<>();
      if (m.find()) {
        Matcher q = Pattern.compile("\"([^\"\\\\]*)\"").matcher(m.group(1));
        while (q.find()) names.add(q.group(1).getBytes(StandardCharsets.UTF_8));
      }
      wsEvents = names.toArray(new byte[0][]);
    }
    return wsEvents;
  }

  /**
   * The WS subscription: the body, and when cycles holds one (>= 0) for a name of wsEvents() (same order),
   * "cursor":{name:cycle,...} before its closing brace.
   */
  byte[] wsSubscription(long[] cycles) {
    String b = wsBody();
    StringBuilder cursor = new StringBuilder();
    byte[][] names = wsEvents();
    for (int k = 0; cycles != null && k < names.length; k++) {
      if (cycles[k] < 0) continue;
      cursor.append(cursor.length() == 0 ? "" : ",").append('"').append(new String(names[k], StandardCharsets.UTF_8))
          .append("\":").append(cycles[k]);
    }
    int close = b.lastIndexOf('}');
    if (cursor.length() > 0 && close > 0) b = b.substring(0, close) + ",\"cursor\":{" + cursor + "}" + b.substring(close);
    return b.getBytes(StandardCharsets.UTF_8);
  }

  private String wsBody() {
    return body == null || body.trim().isEmpty() ? WS_NO_EVENTS : body.trim();
  }

  /** The TestBean strings, checked; a bad value throws IllegalArgumentException naming the property. */
  static MuxConfig parse(String label, String host, String port, String method, String path, String contentType,
                         String body, String connectTimeout, String responseTimeout, String connections,
                         String rampup, String duration, String requestType, String pullInterval,
                         String failOnTimeout, String summaryInterval, String churn) {
    return parse(label, host, port, method, path, contentType, body, connectTimeout, responseTimeout, connections,
        rampup, duration, requestType, pullInterval, failOnTimeout, summaryInterval, churn, "");
  }

  /** As above, with a target run's spec (target.spec's base64; empty: the built-in protocol). */
  static MuxConfig parse(String label, String host, String port, String method, String path, String contentType,
                         String body, String connectTimeout, String responseTimeout, String connections,
                         String rampup, String duration, String requestType, String pullInterval,
                         String failOnTimeout, String summaryInterval, String churn, String target) {
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
    c.pullIntervalMs = (int) whole("pullInterval", pullInterval, 0, Integer.MAX_VALUE);
    c.failOnTimeout = bool("failOnTimeout", failOnTimeout);
    c.summaryIntervalMs = (int) whole("summaryInterval", summaryInterval, 10, 3_600_000);
    c.churnShare = percent("churn", churn) / 100;
    if (target != null && !target.trim().isEmpty()) {
      c.target(TargetSpec.decode(target));
      if (c.churnShare > 0) throw new IllegalArgumentException("churn is not offered for target runs (leave it at 0)");
      return c;
    }
    if (c.type == Type.SSE && !c.method.equals("GET")) {
      throw new IllegalArgumentException("requestType sse is a GET (the subscription in the path's query), not " + c.method);
    }
    if (c.type == Type.WS && !c.method.equals("GET")) {
      throw new IllegalArgumentException("requestType ws is an upgrade of a GET (the subscription its first message), not " + c.method);
    }
    if (c.churnShare > 0 && c.type != Type.SSE && c.type != Type.WS) {
      throw new IllegalArgumentException("churn drops SSE and WebSocket streams only, not " + c.type.name().toLowerCase(Locale.ROOT));
    }
    return c;
  }

  /** Makes this a target run of spec: its server, its transport's type, pull's interval; no built-in assertion. */
  void target(TargetSpec spec) {
    target = spec;
    host = spec.subscribeUrl.host();
    port = spec.subscribeUrl.port();
    method = "GET";
    path = "/";
    failOnTimeout = false;
    switch (spec.transport) {
      case SSE: type = Type.SSE; break;
      case WS: type = Type.WS; break;
      case STREAM: type = Type.COMET; break;
      case POLL: type = Type.POLL; break;
      default: type = Type.PULL; pullIntervalMs = spec.intervalMs;
    }
  }

  /**
   * A built-in run over TLS (docs/engine.md "TLS for the built-in servers"): the connections go to the TLS
   * front's port and speak TLS there, trusting the CA of caBase64 (base64 of PEM text, the JMeter property
   * tls.ca) and checking the host's name. port empty or 0: plain TCP, as before. A target run takes its TLS
   * from its spec, so it refuses these.
   */
  void builtInTls(String port, String caBase64) {
    int p = port == null || port.trim().isEmpty() ? 0 : (int) whole("tlsPort", port, 0, 65535);
    if (p == 0) return;
    if (target != null) throw new IllegalArgumentException("tlsPort is for the built-in servers: a target run's TLS is its spec's");
    String pem;
    try {
      pem = new String(java.util.Base64.getDecoder().decode(required("tlsCa", caBase64)), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("tlsCa: " + e.getMessage(), e);
    }
    if (!pem.contains("-----BEGIN CERTIFICATE-----")) throw new IllegalArgumentException("tlsCa must be base64 of PEM text with a certificate");
    TlsConfig t = new TlsConfig(pem, false, null);
    t.context();   // a CA that does not load is refused here
    this.port = p;
    this.tls = t;
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

  // A percentage from 0 to 100 (a decimal is allowed); empty: 0.
  private static double percent(String what, String value) {
    String v = value == null ? "" : value.trim();
    if (v.isEmpty()) return 0;
    double p;
    try { p = Double.parseDouble(v); } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " is not a percentage: '" + v + "'");
    }
    if (!(p >= 0 && p <= 100)) throw new IllegalArgumentException(what + " out of range 0..100 (percent): " + v);
    return p;
  }

  private static Type type(String value) {
    String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    switch (v) {
      case "comet": return Type.COMET;
      case "poll": return Type.POLL;
      case "pull": return Type.PULL;
      case "sse": return Type.SSE;
      case "ws": return Type.WS;
      default: throw new IllegalArgumentException("requestType must be comet, poll, pull, sse or ws: '" + v + "'");
    }
  }

  private static boolean bool(String what, String value) {
    String v = value == null ? "" : value.trim();
    if (v.equalsIgnoreCase("true")) return true;
    if (v.equalsIgnoreCase("false")) return false;
    throw new IllegalArgumentException(what + " must be true or false: '" + v + "'");
  }
}
