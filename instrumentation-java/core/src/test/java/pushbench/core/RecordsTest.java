package pushbench.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Record and answer shapes, with a clock the test moves by hand. */
class RecordsTest {
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final Instrumentation inst = new Instrumentation(now::get);

    @AfterEach
    void tearDown() {
        inst.shutdown();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static JsonObject parse(String text) {
        return JsonParser.parseString(text).getAsJsonObject();
    }

    private static void assertKeys(JsonObject object, String... keys) {
        assertEquals(new HashSet<>(Arrays.asList(keys)), object.keySet(), object.toString());
    }

    @Test
    void eventRecordHasTheStudysShapeAndNoForbiddenWords() throws Exception {
        inst.answer(Endpoint.EVENT_SET, null, b("{\"name\":\"event1\",\"frequency\":3600000}"));
        FakeObserver observer = new FakeObserver();
        inst.open(inst.pushSpec(b("{\"type\":\"comet\",\"events\":[\"event1\"],\"duration\":3000}")), observer);
        now.addAndGet(4211);
        inst.events().emitter("event1").emit();
        String text = observer.writes.get(0);
        assertTrue(text.endsWith("\n"), "a comet record is one line");
        assertFalse(text.substring(0, text.length() - 1).contains("\n"));
        assertFalse(text.contains("error"));
        assertFalse(text.contains("timeout"));
        JsonObject record = parse(text);
        assertKeys(record, "response", "request", "timings", "connections");
        JsonObject event = record.getAsJsonObject("response").getAsJsonObject("event");
        assertKeys(event, "name", "cycle", "timings", "connections");
        assertEquals("event1", event.get("name").getAsString());
        assertEquals(1, event.get("cycle").getAsLong());
        JsonObject eventTimings = event.getAsJsonObject("timings");
        assertKeys(eventTimings, "duration", "sent", "created");
        assertEquals(1_700_000_004_211L, eventTimings.get("sent").getAsLong());
        assertEquals(1_700_000_004_211L, eventTimings.get("created").getAsLong());
        assertEquals(0, eventTimings.get("duration").getAsLong());
        assertKeys(event.getAsJsonObject("connections"), "total", "place");
        assertEquals(parse("{\"type\":\"comet\",\"events\":[\"event1\"],\"duration\":3000}"), record.get("request"));
        JsonObject timings = record.getAsJsonObject("timings");
        assertEquals(4211, timings.get("duration").getAsLong());
        assertEquals(1_700_000_000_000L, timings.get("created").getAsLong());
        assertEquals(1_700_000_004_211L, timings.get("sent").getAsLong());
        JsonObject connections = record.getAsJsonObject("connections");
        assertKeys(connections, "start", "finish");
        assertEquals(1, connections.get("start").getAsInt());
        assertEquals(1, connections.get("finish").getAsInt());
    }

    @Test
    void timeoutRecordSaysTimeoutAndTheDuration() throws Exception {
        FakeObserver observer = new FakeObserver();
        PushRequest poll = inst.open(inst.pushSpec(b("{\"type\":\"poll\",\"events\":[\"x\"],\"duration\":3600000}")),
                observer);
        now.addAndGet(3_600_000);
        assertTrue(poll.expire());
        assertFalse(poll.expire());
        String text = observer.writes.get(0);
        assertFalse(text.endsWith("\n"), "a poll body is one JSON object");
        assertTrue(text.contains("timeout"));
        assertFalse(text.contains("error"));
        JsonObject record = parse(text);
        assertEquals(parse("{\"timeout\":{\"duration\":3600000}}"), record.get("response"));
        assertEquals(3_600_000, record.getAsJsonObject("timings").get("duration").getAsLong());
        assertEquals(1, observer.completions.get());
    }

    @Test
    void clearAnswerAndClearRecords() throws Exception {
        FakeObserver comet = new FakeObserver();
        FakeObserver poll = new FakeObserver();
        inst.answer(Endpoint.EVENT_SET, null, b("{\"name\":\"a\",\"frequency\":3600000}"));
        inst.open(inst.pushSpec(b("{\"type\":\"comet\",\"events\":[\"a\"]}")), comet);
        inst.open(inst.pushSpec(b("{\"type\":\"poll\",\"events\":[\"a\"],\"duration\":60000}")), poll);
        Answer answer = inst.answer(Endpoint.EVENT_CLEAR, null, b(""));
        assertEquals(200, answer.status());
        assertEquals(parse("{\"clear\":{\"events\":1,\"requests\":2}}"), parse(answer.body()));
        JsonObject cometClear = parse(comet.writes.get(0));
        assertEquals(parse("{\"clear\":{\"reason\":\"clear\"}}"), cometClear.get("response"));
        assertEquals(2, cometClear.getAsJsonObject("connections").get("finish").getAsInt());
        assertTrue(comet.writes.get(0).endsWith("\n"));
        assertEquals(parse("{\"clear\":{\"reason\":\"clear\"}}"), parse(poll.writes.get(0)).get("response"));
        assertEquals(parse("{\"clear\":{\"events\":0,\"requests\":0}}"),
                parse(inst.answer(Endpoint.EVENT_CLEAR, null, b("{}")).body()));
    }

    @Test
    void controlAnswers() {
        assertEquals(parse("{\"timestamp\":{\"client\":123,\"server\":1700000000000}}"),
                parse(inst.answer(Endpoint.TIMESTAMP, "123", new byte[0]).body()));
        assertEquals(parse("{\"timestamp\":{\"client\":null,\"server\":1700000000000}}"),
                parse(inst.answer(Endpoint.TIMESTAMP, null, new byte[0]).body()));
        assertEquals(parse("{\"timestamp\":{\"client\":null,\"server\":1700000000000}}"),
                parse(inst.answer(Endpoint.TIMESTAMP, "12.5x", new byte[0]).body()));
        assertEquals(parse("{\"logging\":{\"enabled\":true}}"),
                parse(inst.answer(Endpoint.LOGGING, null, b("{\"enabled\":true}")).body()));
        assertTrue(inst.log().enabled());
        inst.answer(Endpoint.LOGGING, null, b("{\"enabled\":false}"));
        assertFalse(inst.log().enabled());
        assertEquals(parse("{\"event\":{\"name\":\"e\",\"frequency\":2000,\"state\":\"created\"}}"),
                parse(inst.answer(Endpoint.EVENT_SET, null, b("{\"name\":\"e\",\"frequency\":2000}")).body()));
        assertEquals(parse("{\"event\":{\"name\":\"e\",\"frequency\":3000,\"state\":\"changed\"}}"),
                parse(inst.answer(Endpoint.EVENT_SET, null, b("{\"name\":\"e\",\"frequency\":3000}")).body()));
        assertEquals(parse("{\"event\":{\"name\":\"e\",\"state\":\"removed\"}}"),
                parse(inst.answer(Endpoint.EVENT_REMOVE, null, b("{\"name\":\"e\"}")).body()));
        Answer unknown = inst.answer(Endpoint.EVENT_REMOVE, null, b("{\"name\":\"e\"}"));
        assertEquals(404, unknown.status());
        assertEquals(404, parse(unknown.body()).getAsJsonObject("error").get("status").getAsInt());
        assertEquals(400, inst.answer(Endpoint.EVENT_SET, null, b("{\"name\":\"e\"}")).status());
    }

    @Test
    void statusShape() throws Exception {
        inst.answer(Endpoint.EVENT_SET, null, b("{\"name\":\"b\",\"frequency\":3600000}"));
        inst.answer(Endpoint.EVENT_SET, null, b("{\"name\":\"a\",\"frequency\":2000}"));
        inst.open(inst.pushSpec(b("{\"type\":\"comet\",\"events\":[\"b\"]}")), new FakeObserver());
        inst.events().emitter("b").emit();
        JsonObject status = parse(inst.answer(Endpoint.STATUS, null, new byte[0]).body());
        assertKeys(status, "requests", "logging", "events", "bodies", "streams");
        assertEquals(parse("{\"open\":1,\"comet\":1,\"poll\":0,\"sse\":0,\"ws\":0}"), status.get("requests"));
        assertEquals(parse("{\"late\":0,\"refused\":0}"), status.get("bodies"));
        assertEquals(parse("{\"dropped\":0}"), status.get("streams"));
        assertFalse(status.get("logging").getAsBoolean());
        JsonObject a = status.getAsJsonArray("events").get(0).getAsJsonObject();
        JsonObject bEvent = status.getAsJsonArray("events").get(1).getAsJsonObject();
        assertEquals("a", a.get("name").getAsString());
        assertEquals(0, a.get("cycle").getAsLong());
        assertTrue(a.get("lastCycle").isJsonNull());
        assertEquals(1, bEvent.get("cycle").getAsLong());
        assertEquals(3_600_000, bEvent.get("frequency").getAsLong());
        assertEquals(1, bEvent.getAsJsonObject("lastCycle").get("total").getAsInt());
        assertTrue(bEvent.getAsJsonObject("lastCycle").get("durationMicros").getAsLong() >= 0);
    }

    @Test
    void integerOrNull() {
        assertEquals(1700000000123L, Instrumentation.integerOrNull("1700000000123").longValue());
        assertEquals(-5L, Instrumentation.integerOrNull("-5").longValue());
        assertNull(Instrumentation.integerOrNull("abc"));
        assertNull(Instrumentation.integerOrNull("1.5"));
        assertNull(Instrumentation.integerOrNull(""));
        assertNull(Instrumentation.integerOrNull("99999999999999999999999"));
    }
}
