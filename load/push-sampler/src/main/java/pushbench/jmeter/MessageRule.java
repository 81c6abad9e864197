package pushbench.jmeter;

// An extract rule applied in the engine (docs/targets.md "Cursors", docs/engine.md "Sampled trip time"): the
// grammar of a target file's extract rules (lib/target.js, analysis/measure/extract.js), for the two
// values the engine itself needs from a message's text: a poll's or pull's cursor (subscribe.cursor.
// fromMessage, every message of the subscription) and the send stamp of a timed sample's messages
// (extract.sentUs, a bounded number a second: TripSample). A rule is
//   a JSON pointer (RFC 6901; it starts with "/", "~1" reads "/" and "~0" "~", an array indexed by a token
//   of digits): the message parsed as JSON (Jackson, which JMeter ships), the value it points at; or
//   a regular expression with exactly one capture group (java.util.regex, find): the group's text.
// Values: text() gives a scalar's text (a JSON string's characters, a number's or boolean's literal) or
// null (no match, not JSON, an object, an array or null); number() gives a finite number (a JSON number,
// or a text that reads whole as one, as extract.js's numberOf) or NaN. The message is read as UTF-8.

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

final class MessageRule {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern BAD_ESCAPE = Pattern.compile("~(?![01])");
  private static final Pattern NUMBER = Pattern.compile("\\s*[-+]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?\\s*");

  /** The rule as given. */
  final String text;
  private final JsonPointer pointer;   // null: a regular expression
  private final Pattern pattern;

  private MessageRule(String text, JsonPointer pointer, Pattern pattern) {
    this.text = text;
    this.pointer = pointer;
    this.pattern = pattern;
  }

  /** The rule of `rule`; an IllegalArgumentException names `key` (e.g. "target.spec: extract.sentUs: ..."). */
  static MessageRule compile(String key, String rule) {
    if (rule == null || rule.isEmpty()) throw new IllegalArgumentException(key + ": an extract rule is a non-empty string");
    if (rule.charAt(0) == '/') {
      if (BAD_ESCAPE.matcher(rule).find()) {
        throw new IllegalArgumentException(key + ": a JSON pointer's ~ must be ~0 or ~1: '" + rule + "'");
      }
      try {
        return new MessageRule(rule, JsonPointer.compile(rule), null);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(key + ": not a JSON pointer: '" + rule + "' (" + e.getMessage() + ")");
      }
    }
    Pattern p;
    try {
      p = Pattern.compile(rule);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException(key + ": neither a JSON pointer (starts with /) nor a regular expression: " + e.getDescription());
    }
    int groups = p.matcher("").groupCount();
    if (groups != 1) throw new IllegalArgumentException(key + ": a regular expression needs exactly one capture group, '" + rule + "' has " + groups);
    return new MessageRule(rule, null, p);
  }

  /** The value's text in b[off, off + len), or null. */
  String text(byte[] b, int off, int len) {
    if (pattern != null) {
      Matcher m = pattern.matcher(new String(b, off, len, StandardCharsets.UTF_8));
      return m.find() ? m.group(1) : null;
    }
    JsonNode v = pointed(b, off, len);
    return v != null && (v.isTextual() || v.isNumber() || v.isBoolean()) ? v.asText() : null;
  }

  /** The value in b[off, off + len) as a finite number, or NaN. */
  double number(byte[] b, int off, int len) {
    if (pattern != null) return numberOf(text(b, off, len));
    JsonNode v = pointed(b, off, len);
    if (v == null) return Double.NaN;
    if (v.isNumber()) return finite(v.asDouble());
    return v.isTextual() ? numberOf(v.asText()) : Double.NaN;
  }

  private JsonNode pointed(byte[] b, int off, int len) {
    JsonNode doc;
    try {
      doc = JSON.readTree(b, off, len);
    } catch (java.io.IOException e) {
      return null;   // not JSON: no match
    }
    if (doc == null) return null;
    JsonNode v = doc.at(pointer);
    return v.isMissingNode() ? null : v;
  }

  private static double numberOf(String s) {
    if (s == null || s.isBlank() || !NUMBER.matcher(s).matches()) return Double.NaN;
    return finite(Double.parseDouble(s.trim()));
  }

  private static double finite(double d) {
    return Double.isFinite(d) ? d : Double.NaN;
  }
}
