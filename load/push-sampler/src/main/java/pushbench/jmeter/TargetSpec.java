package pushbench.jmeter;

// A target run's spec (issue #47; docs/targets.md "Inside: what the engines get and write"): the normalized
// target lib/target.js hands every engine as the JMeter property target.spec (base64 of one JSON object),
// parsed once (Jackson, which JMeter ships in its lib/) and checked strictly: an unknown key, a missing or
// mistyped one, or a placeholder not allowed where it stands is an IllegalArgumentException naming the key
// ("target.spec: subscribe.url: ..."). An https:// or wss:// URL is spoken over TLS (TlsLink) with the
// spec's `tls` settings (TlsConfig: { ca: PEM text or null, insecure, serverName or null }). The spec then builds the
// engine's requests with the placeholders filled (Template, parsed once):
//   {{channel}}  channelPrefix + the channel's number (connection i subscribes to channel i mod channels)
//   {{client}}   the connection's number on its engine, from 0 (subscribe only)
//   {{seq}}      the publish's sequence number on its channel, from 1 (publish only)
//   {{sentUs}}   the engine clock's µs since the epoch just before the publish's first byte is written
//                (PushClient.nowMicros, the stream log's clock; publish only)
//   {{pad:N}}    N bytes of 'x', N from 0 to 1,048,576
//   {{cursor}}   poll and pull (subscribe.cursorMessage: { rule, initial }): the value the rule (MessageRule)
//                took from the connection's last message that it matched, else `initial`; in the URL
//                percent-encoded (all but A-Z a-z 0-9 - . _ ~), in a header as is (subscribe only)
//   {{token}}    a value of the spec's token file (issue #49 item 2): connection i's is the file's line
//                first + i + 1, channel c's publish the line first + (c mod count) + 1 (tokens: { file, first,
//                count }: this engine's lines; read once here, never logged nor put in a message)
// A URL's scheme, host and port are fixed (no placeholder before its path; the port 80, or 443 over TLS,
// unless given); its path and query are the request target. Header values, `send` and the publish body are sent as UTF-8.
// The spec's extract.sentUs (null: none) is the rule of the engine's timed sample (TripSample).

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

final class TargetSpec {
  enum Transport { SSE, WS, STREAM, POLL, PULL }

  enum Framing { LINE, CHUNK, DELIMITER }

  private static final String PREFIX = "target.spec: ";
  private static final Set<String> TOP = Set.of("name", "transport", "intervalMs", "subscribe", "publish", "channels",
      "rate", "drainMs", "channelPrefix", "tls", "tokens", "extract");
  private static final Set<String> TLS = Set.of("ca", "insecure", "serverName");
  private static final Set<String> SUBSCRIBE = Set.of("url", "headers", "send", "framing", "cursor", "cursorMessage");
  private static final Set<String> PUBLISH = Set.of("method", "url", "headers", "body");
  private static final Set<String> SUBSCRIBE_PLACEHOLDERS = Set.of("channel", "client", "token", "cursor", "pad");
  /** A cursor value longer than this (characters) is not taken from a message. */
  static final int MAX_CURSOR = 4096;
  private static final Set<String> PUBLISH_PLACEHOLDERS = Set.of("channel", "seq", "sentUs", "token", "pad");

  final String name;
  final Transport transport;
  /** Pull: the wait after an answer before the next ask, ms; 0 for the other transports. */
  final int intervalMs;
  final Url subscribeUrl;
  final Header[] subscribeHeaders;
  /** WS: the text sent once the upgrade is accepted; null: none. */
  final Template send;
  final Framing framing;
  /** Framing DELIMITER: the delimiter's UTF-8 bytes; else null. */
  final byte[] delimiter;
  /** Poll and pull: response header names (as given) whose values go out on the next request as cursorTo. */
  final String[] cursorFrom;
  final String[] cursorTo;
  /** Poll and pull: the rule taking {{cursor}} from a message (null: none) and its value before the first. */
  final MessageRule cursorRule;
  final String cursorInitial;
  /** The rule of a message's send stamp (the file's extract.sentUs), null: none (TripSample times nothing). */
  final MessageRule sentUsRule;
  final String publishMethod;
  final Url publishUrl;
  final Header[] publishHeaders;
  final Template publishBody;
  final int channels;
  /** Messages per second the engine publishes on each channel. */
  final double rate;
  /** The publishers stop this long before the duration ends, ms. */
  final long drainMs;
  final String channelPrefix;
  /** TLS settings for the https:// and wss:// URLs (defaults when the spec has none). */
  final TlsConfig tls;
  /** This engine's token values (its connections' {{token}}s, in order); empty: no token file. */
  private final String[] tokens;
  /** SSE: the user's headers name an Accept of their own (else the engine asks for text/event-stream). */
  private final boolean acceptGiven;

  /** A URL's fixed part and its request target (path and query) as a template; tls: https or wss. */
  record Url(String scheme, String authority, String host, int port, Template target) {
    boolean tls() { return scheme.equals("https") || scheme.equals("wss"); }
  }

  /** A request header: its name and its value as a template. */
  record Header(String name, Template value) { }

  private TargetSpec(JsonNode root) {
    only("", root, TOP);
    name = string("name", root.get("name"), false);
    String t = string("transport", root.get("transport"), false);
    switch (t) {
      case "sse": transport = Transport.SSE; break;
      case "ws": transport = Transport.WS; break;
      case "stream": transport = Transport.STREAM; break;
      case "poll": transport = Transport.POLL; break;
      case "pull": transport = Transport.PULL; break;
      default: throw fail("transport", "must be sse, ws, stream, poll or pull, got '" + t + "'");
    }
    long interval = whole("intervalMs", root.get("intervalMs"), 0, 3_600_000);
    if (transport == Transport.PULL && interval < 10) throw fail("intervalMs", "transport pull needs 10 to 3600000 ms, got " + interval);
    intervalMs = transport == Transport.PULL ? (int) interval : 0;

    JsonNode sub = object("subscribe", root.get("subscribe"));
    only("subscribe", sub, SUBSCRIBE);
    subscribeUrl = url("subscribe.url", sub.get("url"), transport == Transport.WS ? "ws" : "http", SUBSCRIBE_PLACEHOLDERS);
    subscribeHeaders = headers("subscribe.headers", sub.get("headers"), SUBSCRIBE_PLACEHOLDERS);
    JsonNode sendNode = sub.get("send");
    if (sendNode == null || sendNode.isNull()) {
      send = null;
    } else {
      if (transport != Transport.WS) throw fail("subscribe.send", "only for transport ws");
      send = Template.parse("subscribe.send", string("subscribe.send", sendNode, true), SUBSCRIBE_PLACEHOLDERS);
    }
    JsonNode fr = sub.get("framing");
    if (fr == null || fr.isNull()) {
      framing = Framing.LINE;
      delimiter = null;
    } else {
      fr = object("subscribe.framing", fr);
      only("subscribe.framing", fr, Set.of("kind", "text"));
      String kind = string("subscribe.framing.kind", fr.get("kind"), false);
      switch (kind) {
        case "line": framing = Framing.LINE; delimiter = null; break;
        case "chunk": framing = Framing.CHUNK; delimiter = null; break;
        case "delimiter":
          framing = Framing.DELIMITER;
          delimiter = string("subscribe.framing.text", fr.get("text"), false).getBytes(StandardCharsets.UTF_8);
          break;
        default: throw fail("subscribe.framing.kind", "must be line, chunk or delimiter, got '" + kind + "'");
      }
      if (framing != Framing.LINE && transport != Transport.STREAM) throw fail("subscribe.framing", "only for transport stream");
    }
    List<String[]> cursor = pairs("subscribe.cursor", sub.get("cursor"));
    if (!cursor.isEmpty() && transport != Transport.POLL && transport != Transport.PULL) {
      throw fail("subscribe.cursor", "only for transports poll and pull");
    }
    cursorFrom = new String[cursor.size()];
    cursorTo = new String[cursor.size()];
    for (int k = 0; k < cursor.size(); k++) {
      cursorFrom[k] = token("subscribe.cursor", cursor.get(k)[0]);
      cursorTo[k] = token("subscribe.cursor", cursor.get(k)[1]);
    }
    JsonNode cm = sub.get("cursorMessage");
    if (cm == null || cm.isNull()) {
      cursorRule = null;
      cursorInitial = "";
    } else {
      object("subscribe.cursorMessage", cm);
      only("subscribe.cursorMessage", cm, Set.of("rule", "initial"));
      if (transport != Transport.POLL && transport != Transport.PULL) throw fail("subscribe.cursorMessage", "only for transports poll and pull");
      cursorRule = rule("subscribe.cursorMessage.rule", cm.get("rule"));
      JsonNode init = cm.get("initial");
      cursorInitial = init == null || init.isNull() ? "" : string("subscribe.cursorMessage.initial", init, true);
      if (!usableCursor(cursorInitial)) throw fail("subscribe.cursorMessage.initial", "must hold no control character (at most " + MAX_CURSOR + ")");
    }
    boolean cursorUsed = subscribeUrl.target.uses(Template.CURSOR);
    for (Header h : subscribeHeaders) cursorUsed |= h.value.uses(Template.CURSOR);
    if (send != null && send.uses(Template.CURSOR)) throw fail("subscribe.send", "{{cursor}} only in a poll's or pull's URL and headers");
    if (cursorUsed && cursorRule == null) throw fail("subscribe.cursorMessage", "required: {{cursor}} is used");
    if (!cursorUsed && cursorRule != null) throw fail("subscribe.cursorMessage", "no {{cursor}} in subscribe.url or subscribe.headers uses it");
    boolean accept = false;
    for (Header h : subscribeHeaders) accept |= h.name.equalsIgnoreCase("Accept");
    acceptGiven = accept;

    JsonNode pub = object("publish", root.get("publish"));
    only("publish", pub, PUBLISH);
    JsonNode m = pub.get("method");
    publishMethod = m == null || m.isNull() ? "POST" : string("publish.method", m, false);
    if (!publishMethod.equals("POST") && !publishMethod.equals("PUT")) throw fail("publish.method", "must be POST or PUT, got '" + publishMethod + "'");
    publishUrl = url("publish.url", pub.get("url"), "http", PUBLISH_PLACEHOLDERS);
    publishHeaders = headers("publish.headers", pub.get("headers"), PUBLISH_PLACEHOLDERS);
    publishBody = Template.parse("publish.body", string("publish.body", pub.get("body"), true), PUBLISH_PLACEHOLDERS);
    if (!publishBody.uses(Template.SEQ)) throw fail("publish.body", "must carry {{seq}}");

    channels = (int) whole("channels", root.get("channels"), 1, 100_000);
    rate = number("rate", root.get("rate"), 0.01, 10_000);
    drainMs = whole("drainMs", root.get("drainMs"), 0, 3_600_000);
    channelPrefix = string("channelPrefix", root.get("channelPrefix"), false);
    if (!channelPrefix.matches("[A-Za-z0-9._-]{1,200}")) throw fail("channelPrefix", "letters, digits, '.', '_' and '-' only, got '" + channelPrefix + "'");
    tls = tlsOf(root.get("tls"));
    tokens = tokensOf(root.get("tokens"));
    JsonNode ex = root.get("extract");
    if (ex == null || ex.isNull()) {
      sentUsRule = null;
    } else {
      object("extract", ex);
      only("extract", ex, Set.of("sentUs"));
      JsonNode su = ex.get("sentUs");
      sentUsRule = su == null || su.isNull() ? null : rule("extract.sentUs", su);
    }
    boolean token = subscribeUrl.target.uses(Template.TOKEN) || publishUrl.target.uses(Template.TOKEN)
        || publishBody.uses(Template.TOKEN) || (send != null && send.uses(Template.TOKEN));
    for (Header h : subscribeHeaders) token |= h.value.uses(Template.TOKEN);
    for (Header h : publishHeaders) token |= h.value.uses(Template.TOKEN);
    if (token && tokens.length == 0) throw fail("tokens", "required: {{token}} is used");
  }

  // The spec's tokens { file, first, count }: lines first+1..first+count of the file (no value is ever put
  // in a message: a line is named by its number).
  private static String[] tokensOf(JsonNode v) {
    if (v == null || v.isNull()) return new String[0];
    object("tokens", v);
    only("tokens", v, Set.of("file", "first", "count"));
    String file = string("tokens.file", v.get("file"), false);
    int first = (int) whole("tokens.first", v.get("first"), 0, 10_000_000);
    int count = (int) whole("tokens.count", v.get("count"), 1, 10_000_000);
    List<String> lines;
    try {
      lines = java.nio.file.Files.readAllLines(java.nio.file.Path.of(file), StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw fail("tokens.file", "cannot be read on this engine's host: " + file + " (" + e.getClass().getSimpleName() + ")");
    }
    if (lines.size() < first + count) {
      throw fail("tokens.file", file + " holds " + lines.size() + " line(s), this engine's connections need lines "
          + (first + 1) + " to " + (first + count));
    }
    String[] out = new String[count];
    for (int i = 0; i < count; i++) {
      String t = lines.get(first + i);
      if (t.isEmpty() || !t.chars().allMatch(ch -> ch >= 0x20 && ch != 0x7f)) {
        throw fail("tokens.file", file + ": line " + (first + i + 1) + " is empty or holds a control character (its value is not shown)");
      }
      out[i] = t;
    }
    return out;
  }

  private String tokenOf(long i) {
    return tokens.length == 0 ? "" : tokens[(int) (i % tokens.length)];
  }

  // The spec's tls object: { ca: PEM text or null, insecure: boolean, serverName: a host name or null }.
  private static TlsConfig tlsOf(JsonNode v) {
    if (v == null || v.isNull()) return new TlsConfig(null, false, null);
    object("tls", v);
    only("tls", v, TLS);
    JsonNode ca = v.get("ca");
    String pem = ca == null || ca.isNull() ? null : string("tls.ca", ca, false);
    if (pem != null && !pem.contains("-----BEGIN CERTIFICATE-----")) throw fail("tls.ca", "must be PEM text with a certificate (-----BEGIN CERTIFICATE-----)");
    JsonNode in = v.get("insecure");
    if (in != null && !in.isNull() && !in.isBoolean()) throw fail("tls.insecure", "must be true or false, got " + in);
    JsonNode sn = v.get("serverName");
    String name = sn == null || sn.isNull() ? null : string("tls.serverName", sn, false);
    if (name != null && !name.matches("[A-Za-z0-9.-]{1,253}")) throw fail("tls.serverName", "must be a host name, got '" + name + "'");
    TlsConfig tls = new TlsConfig(pem, in != null && in.asBoolean(), name);
    if (pem != null) tls.context();   // a CA that does not load is refused here, naming tls.ca
    return tls;
  }

  /** The spec of target.spec's value (base64 of the JSON object); IllegalArgumentException naming the problem. */
  static TargetSpec decode(String base64) {
    String v = base64 == null ? "" : base64.trim();
    byte[] json;
    try {
      json = Base64.getDecoder().decode(v);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(PREFIX + "not base64: " + e.getMessage());
    }
    return parse(new String(json, StandardCharsets.UTF_8));
  }

  /** The spec of its JSON text. */
  static TargetSpec parse(String json) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(PREFIX + "not JSON: " + e.getOriginalMessage());
    }
    if (root == null || !root.isObject()) throw new IllegalArgumentException(PREFIX + "not a JSON object");
    return new TargetSpec(root);
  }

  // ---- what the engine asks of it ------------------------------------------------------------------------

  /** Channel c's name ({{channel}}). */
  String channel(int c) {
    return channelPrefix + c;
  }

  /** The channel connection i subscribes to. */
  int channelOf(int client) {
    return client % channels;
  }

  /**
   * A subscription's request (GET of the subscribe URL, the user's headers) for connection `client`, with
   * `extra` header lines (each ending CRLF) after the user's; SSE adds Accept: text/event-stream unless the
   * user gave an Accept.
   */
  byte[] subscribeRequest(int client, String extra) {
    return subscribeRequest(client, extra, null);
  }

  /** As above, {{cursor}} filled with `cursor` (null: the spec's initial value). */
  byte[] subscribeRequest(int client, String extra, String cursor) {
    String ch = channel(channelOf(client));
    String cur = cursor == null ? cursorInitial : cursor;
    StringBuilder s = new StringBuilder(256);
    s.append("GET ");
    String token = tokenOf(client);
    subscribeUrl.target.fill(s, ch, client, 0, 0, token, cur);
    s.append(" HTTP/1.1\r\nHost: ").append(subscribeUrl.authority).append("\r\n");
    for (Header h : subscribeHeaders) {
      s.append(h.name).append(": ");
      h.value.fill(s, ch, client, 0, 0, token, cur);
      s.append("\r\n");
    }
    if (transport == Transport.SSE && !acceptGiven) s.append("Accept: text/event-stream\r\n");
    s.append(extra).append("\r\n");
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A poll's or pull's cursor taken from the message b[off, off + len) by the spec's rule: its value, or null
   * (no rule, no match, or a value that cannot go into a header: a control character, longer than MAX_CURSOR),
   * so the connection keeps the cursor it had.
   */
  String cursorOf(byte[] b, int off, int len) {
    if (cursorRule == null) return null;
    String v = cursorRule.text(b, off, len);
    return v != null && usableCursor(v) ? v : null;
  }

  private static boolean usableCursor(String v) {
    if (v.length() > MAX_CURSOR) return false;
    for (int i = 0; i < v.length(); i++) {
      char ch = v.charAt(i);
      if (ch < 0x20 || ch == 0x7f) return false;
    }
    return true;
  }

  /** WS: the text sent after the 101 for connection `client`, UTF-8; null when the spec has none. */
  byte[] sendText(int client) {
    if (send == null) return null;
    StringBuilder s = new StringBuilder();
    send.fill(s, channel(channelOf(client)), client, 0, 0, tokenOf(client));
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The publish of `seq` on channel c stamped sentUs: method, URL, headers, Content-Length and body. */
  byte[] publishRequest(int c, long seq, long sentUs) {
    String ch = channel(c);
    StringBuilder b = new StringBuilder(64);
    String token = tokenOf(c);
    publishBody.fill(b, ch, 0, seq, sentUs, token);
    byte[] body = b.toString().getBytes(StandardCharsets.UTF_8);
    StringBuilder s = new StringBuilder(256);
    s.append(publishMethod).append(' ');
    publishUrl.target.fill(s, ch, 0, seq, sentUs, token);
    s.append(" HTTP/1.1\r\nHost: ").append(publishUrl.authority).append("\r\n");
    for (Header h : publishHeaders) {
      s.append(h.name).append(": ");
      h.value.fill(s, ch, 0, seq, sentUs, token);
      s.append("\r\n");
    }
    s.append("Content-Length: ").append(body.length).append("\r\n\r\n");
    byte[] head = s.toString().getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[head.length + body.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(body, 0, all, head.length, body.length);
    return all;
  }

  // ---- checks ----------------------------------------------------------------------------------------------

  /** The error naming the spec's key (Template's too). */
  static IllegalArgumentException fail(String key, String what) {
    return new IllegalArgumentException(PREFIX + key + ": " + what);
  }

  private static void only(String key, JsonNode node, Set<String> allowed) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!allowed.contains(k)) throw fail(key.isEmpty() ? k : key + "." + k, "unknown key");
    }
  }

  private static JsonNode object(String key, JsonNode v) {
    if (v == null) throw fail(key, "required");
    if (!v.isObject()) throw fail(key, "must be an object, got " + v.getNodeType().name().toLowerCase(Locale.ROOT));
    return v;
  }

  private static String string(String key, JsonNode v, boolean emptyAllowed) {
    if (v == null) throw fail(key, "required");
    if (!v.isTextual()) throw fail(key, "must be a string, got " + v.getNodeType().name().toLowerCase(Locale.ROOT));
    if (!emptyAllowed && v.asText().isEmpty()) throw fail(key, "must not be empty");
    return v.asText();
  }

  private static long whole(String key, JsonNode v, long min, long max) {
    if (v == null) throw fail(key, "required");
    if (!v.isIntegralNumber() && !(v.isNumber() && v.asDouble() == Math.rint(v.asDouble()))) throw fail(key, "must be a whole number, got " + v);
    long n = v.asLong();
    if (n < min || n > max) throw fail(key, "must be from " + min + " to " + max + ", got " + n);
    return n;
  }

  private static double number(String key, JsonNode v, double min, double max) {
    if (v == null) throw fail(key, "required");
    if (!v.isNumber()) throw fail(key, "must be a number, got " + v.getNodeType().name().toLowerCase(Locale.ROOT));
    double d = v.asDouble();
    if (!(d >= min && d <= max)) throw fail(key, "must be from " + min + " to " + max + ", got " + d);
    return d;
  }

  // A list of [a, b] pairs of strings (headers, cursor); absent or null: none.
  private static List<String[]> pairs(String key, JsonNode v) {
    List<String[]> out = new ArrayList<>();
    if (v == null || v.isNull()) return out;
    if (!v.isArray()) throw fail(key, "must be a list of [name, value] pairs");
    for (int i = 0; i < v.size(); i++) {
      JsonNode p = v.get(i);
      if (!p.isArray() || p.size() != 2 || !p.get(0).isTextual() || !p.get(1).isTextual()) {
        throw fail(key + "[" + i + "]", "must be a pair of strings, got " + p);
      }
      out.add(new String[] {p.get(0).asText(), p.get(1).asText()});
    }
    return out;
  }

  private static MessageRule rule(String key, JsonNode v) {
    return MessageRule.compile(PREFIX + key, string(key, v, false));
  }

  private static String token(String key, String name) {
    if (!name.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) throw fail(key + "." + name, "not a header name");
    return name;
  }

  private static Header[] headers(String key, JsonNode v, Set<String> allowed) {
    List<String[]> pairs = pairs(key, v);
    Header[] out = new Header[pairs.size()];
    for (int i = 0; i < out.length; i++) {
      String n = token(key, pairs.get(i)[0]);
      String value = pairs.get(i)[1];
      if (n.matches("(?i)host|content-length|transfer-encoding|connection|upgrade")) throw fail(key + "." + n, "set by the engine itself");
      if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0 || value.indexOf('\0') >= 0) throw fail(key + "." + n, "must not hold CR, LF or NUL");
      out[i] = new Header(n, Template.parse(key + "." + n, value, allowed));
    }
    return out;
  }

  // scheme://authority/path?query: the scheme must be `scheme` or its TLS form (https, wss); no placeholder,
  // credentials or fragment outside the path and query; the port defaults to 80 (443 over TLS).
  private static Url url(String key, JsonNode v, String scheme, Set<String> allowed) {
    String text = string(key, v, false);
    int sep = text.indexOf("://");
    String given = sep < 0 ? "" : text.substring(0, sep).toLowerCase(Locale.ROOT);
    String secure = scheme.equals("ws") ? "wss" : "https";
    if (!given.equals(scheme) && !given.equals(secure)) throw fail(key, "must be a " + scheme + ":// or " + secure + ":// URL, got '" + text + "'");
    scheme = given;
    String rest = text.substring(sep + 3);
    int slash = rest.length();
    for (int i = 0; i < rest.length(); i++) {
      char c = rest.charAt(i);
      if (c == '/' || c == '?') { slash = i; break; }
    }
    String authority = rest.substring(0, slash);
    String target = rest.substring(slash);
    if (target.isEmpty() || target.charAt(0) == '?') target = "/" + target;
    if (authority.isEmpty() || authority.contains("{{") || authority.contains("@")) {
      throw fail(key, "needs a host (no placeholder or credentials in it), got '" + text + "'");
    }
    if (target.indexOf('#') >= 0) throw fail(key, "a #fragment is never sent: '" + text + "'");
    String host;
    String portText = null;
    if (authority.startsWith("[")) {
      int close = authority.indexOf(']');
      if (close < 0) throw fail(key, "bad IPv6 host in '" + text + "'");
      host = authority.substring(1, close);
      if (close + 1 < authority.length()) {
        if (authority.charAt(close + 1) != ':') throw fail(key, "bad host in '" + text + "'");
        portText = authority.substring(close + 2);
      }
    } else {
      int colon = authority.lastIndexOf(':');
      host = colon < 0 ? authority : authority.substring(0, colon);
      if (colon >= 0) portText = authority.substring(colon + 1);
    }
    int port = scheme.equals(secure) ? 443 : 80;
    if (portText != null) {
      if (!portText.matches("[0-9]{1,5}") || Integer.parseInt(portText) < 1 || Integer.parseInt(portText) > 65535) {
        throw fail(key, "bad port '" + portText + "' in '" + text + "'");
      }
      port = Integer.parseInt(portText);
    }
    return new Url(scheme, authority, host, port, Template.parse(key, target, allowed, true));
  }
}
