package pushbench.jmeter;

// JUnit of the engine's extract rules (MessageRule; docs/targets.md "Cursors"): JSON pointers (escapes,
// arrays, scalars only), regular expressions with one group, no match, not JSON, numbers as extract.js
// reads them, and bad rules refused naming their key.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class MessageRuleTest {
  private static String text(String rule, String message) {
    byte[] b = ("<<" + message + ">>").getBytes(StandardCharsets.UTF_8);   // the message inside a larger buffer
    return MessageRule.compile("k", rule).text(b, 2, b.length - 4);
  }

  private static double number(String rule, String message) {
    byte[] b = message.getBytes(StandardCharsets.UTF_8);
    return MessageRule.compile("k", rule).number(b, 0, b.length);
  }

  @Test
  void aJsonPointerGivesTheScalarItPointsAt() {
    String m = "{\"id\":\"1700000000:3\",\"n\":17,\"ok\":true,\"a/b\":{\"~c\":\"esc\"},\"list\":[\"x\",{\"next\":\"y\"}],\"o\":{},\"z\":null}";
    assertEquals("1700000000:3", text("/id", m));
    assertEquals("17", text("/n", m));
    assertEquals("true", text("/ok", m));
    assertEquals("esc", text("/a~1b/~0c", m), "~1 reads /, ~0 reads ~");
    assertEquals("y", text("/list/1/next", m));
    assertNull(text("/o", m), "an object is no value");
    assertNull(text("/z", m), "null is no value");
    assertNull(text("/list/7", m));
    assertNull(text("/missing", m));
    assertNull(text("/id", "not json {"), "a message that is not JSON: no match");
    assertNull(text("/id", ""), "an empty message: no match");
    assertEquals("é", text("/u", "{\"u\":\"é\"}"), "read as UTF-8");
  }

  @Test
  void aRegularExpressionGivesItsGroupOfTheFirstMatch() {
    assertEquals("42", text("id=([0-9]+)", "event id=42 then id=43"));
    assertNull(text("id=([0-9]+)", "a keep-alive"));
    assertEquals("1.5e3", text("t=([^ ]+)", "t=1.5e3 x"));
  }

  @Test
  void numbersAreFiniteJsonNumbersOrTextsThatReadWholeAsOne() {
    assertEquals(1700000000123456.0, number("/sentUs", "{\"sentUs\":1700000000123456}"));
    assertEquals(17.0, number("/s", "{\"s\":\"17\"}"));
    assertEquals(1.7e6, number("/s", "{\"s\":\"1.7e6\"}"));
    assertEquals(5.0, number("s=([0-9]+)", "s=5;"));
    assertTrue(Double.isNaN(number("/s", "{\"s\":\"17x\"}")));
    assertTrue(Double.isNaN(number("/s", "{\"s\":\"\"}")));
    assertTrue(Double.isNaN(number("/s", "{\"s\":[1]}")));
    assertTrue(Double.isNaN(number("/s", "{}")));
    assertTrue(Double.isNaN(number("s=([a-z]+)", "s=abc")));
  }

  @Test
  void badRulesAreRefusedNamingTheirKey() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> MessageRule.compile("target.spec: x", "id=[0-9]+")).getMessage()
        .startsWith("target.spec: x: a regular expression needs exactly one capture group, 'id=[0-9]+' has 0"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> MessageRule.compile("x", "(a)(b)")).getMessage().contains("has 2"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> MessageRule.compile("x", "(unclosed")).getMessage()
        .startsWith("x: neither a JSON pointer"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> MessageRule.compile("x", "/a~2")).getMessage().contains("~0 or ~1"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> MessageRule.compile("x", "/a~")).getMessage().contains("~0 or ~1"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> MessageRule.compile("x", "")).getMessage().contains("non-empty"));
  }
}
