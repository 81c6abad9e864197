package pushbench.jmeter;

// A target spec's text with placeholders (TargetSpec; docs/targets.md "Inside: what the engines get and write"):
// split once into literals and placeholders ({{channel}}, {{client}}, {{seq}}, {{sentUs}}, {{token}}, {{cursor}},
// {{pad:N}}; their meanings in TargetSpec's header), then filled per request without parsing again. A placeholder
// not allowed where it stands, a bad {{pad:N}} or an unclosed "{{" is an IllegalArgumentException naming the
// spec's key (TargetSpec.fail). In a URL's request target {{cursor}} is percent-encoded (RFC 3986's unreserved
// characters kept), elsewhere it goes as is.

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

final class Template {
  /** The largest N of {{pad:N}}, bytes. */
  static final int MAX_PAD = 1 << 20;
  static final int CHANNEL = 0;
  static final int CLIENT = 1;
  static final int SEQ = 2;
  static final int SENT_US = 3;
  static final int PAD = 4;
  static final int TOKEN = 5;
  static final int CURSOR = 6;
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([^{}]*)\\}\\}");

  final String text;
  private final String[] literals;   // one more than the placeholders
  private final int[] kinds;
  private final int[] pads;
  /** A URL's request target: {{cursor}} is percent-encoded in it. */
  private final boolean inUrl;

  private Template(String text, String[] literals, int[] kinds, int[] pads, boolean inUrl) {
    this.text = text;
    this.literals = literals;
    this.kinds = kinds;
    this.pads = pads;
    this.inUrl = inUrl;
  }

  /** The template of text; a placeholder outside `allowed`, a bad {{pad:N}} or an unclosed one names key. */
  static Template parse(String key, String text, Set<String> allowed) {
    return parse(key, text, allowed, false);
  }

  /** As above; inUrl: a URL's request target (its {{cursor}} percent-encoded). */
  static Template parse(String key, String text, Set<String> allowed, boolean inUrl) {
    Matcher m = PLACEHOLDER.matcher(text);
    List<String> lits = new ArrayList<>();
    List<int[]> parts = new ArrayList<>();
    StringBuilder rest = new StringBuilder();
    int at = 0;
    while (m.find()) {
      String lit = text.substring(at, m.start());
      lits.add(lit);
      rest.append(lit);
      at = m.end();
      String inner = m.group(1);
      int colon = inner.indexOf(':');
      String name = colon < 0 ? inner : inner.substring(0, colon);
      String arg = colon < 0 ? null : inner.substring(colon + 1);
      if (!allowed.contains(name) || name.equals("pad") != (arg != null)) {
        throw TargetSpec.fail(key, "unknown placeholder {{" + inner + "}} (allowed here: " + allowedText(allowed) + ")");
      }
      int kind;
      int pad = 0;
      switch (name) {
        case "channel": kind = CHANNEL; break;
        case "client": kind = CLIENT; break;
        case "seq": kind = SEQ; break;
        case "sentUs": kind = SENT_US; break;
        case "token": kind = TOKEN; break;
        case "cursor": kind = CURSOR; break;
        default:
          kind = PAD;
          if (!arg.matches("[0-9]{1,7}") || Integer.parseInt(arg) > MAX_PAD) {
            throw TargetSpec.fail(key, "{{pad:N}} needs N from 0 to " + MAX_PAD + ", got '" + arg + "'");
          }
          pad = Integer.parseInt(arg);
      }
      parts.add(new int[] {kind, pad});
    }
    String tail = text.substring(at);
    lits.add(tail);
    rest.append(tail);
    // "{{" always opens a placeholder; "}}" alone is text (a JSON body closing nested objects)
    if (rest.indexOf("{{") >= 0) throw TargetSpec.fail(key, "an unclosed placeholder ({{ without its }})");
    int[] kinds = new int[parts.size()];
    int[] pads = new int[parts.size()];
    for (int i = 0; i < kinds.length; i++) {
      kinds[i] = parts.get(i)[0];
      pads[i] = parts.get(i)[1];
    }
    return new Template(text, lits.toArray(new String[0]), kinds, pads, inUrl);
  }

  private static String allowedText(Set<String> allowed) {
    List<String> names = new ArrayList<>();
    for (String n : List.of("channel", "client", "seq", "sentUs", "token", "cursor", "pad")) {
      if (allowed.contains(n)) names.add(n.equals("pad") ? "{{pad:N}}" : "{{" + n + "}}");
    }
    return String.join(", ", names);
  }

  boolean uses(int kind) {
    for (int k : kinds) if (k == kind) return true;
    return false;
  }

  /** Appends the text with each placeholder filled ({{cursor}} empty). */
  void fill(StringBuilder out, String channel, long client, long seq, long sentUs, String token) {
    fill(out, channel, client, seq, sentUs, token, "");
  }

  /** Appends the text with each placeholder filled, {{cursor}} with `cursor`. */
  void fill(StringBuilder out, String channel, long client, long seq, long sentUs, String token, String cursor) {
    for (int i = 0; i < kinds.length; i++) {
      out.append(literals[i]);
      switch (kinds[i]) {
        case CHANNEL: out.append(channel); break;
        case CLIENT: out.append(client); break;
        case SEQ: out.append(seq); break;
        case SENT_US: out.append(sentUs); break;
        case TOKEN: out.append(token); break;
        case CURSOR: if (inUrl) percentEncode(out, cursor); else out.append(cursor); break;
        default: for (int n = pads[i]; n > 0; n--) out.append('x');
      }
    }
    out.append(literals[kinds.length]);
  }

  /** Appends v's UTF-8 bytes, each but A-Z a-z 0-9 - . _ ~ (RFC 3986's unreserved) as %XX. */
  static void percentEncode(StringBuilder out, String v) {
    for (byte b : v.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~') {
        out.append((char) c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16))).append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
      }
    }
  }

  String fill(String channel, long client, long seq, long sentUs) {
    StringBuilder s = new StringBuilder();
    fill(s, channel, client, seq, sentUs, "");
    return s.toString();
  }
}
