package pushbench.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * POST /event/publish (docs/protocol.md "Publish"): one emit cycle of a name now, no emitter created
 * (PB_MAX_EMITTERS does not apply), ids continuing the name's emitter or counted per name, the data in the
 * event record, one name's publishes written in cycle order.
 */
class PublishTest {
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final Instrumentation inst = new Instrumentation(now::get, 1);

    @AfterEach
    void tearDown() {
        inst.shutdown();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Answer publish(String body) {
        return inst.answer(Endpoint.EVENT_PUBLISH, null, b(body));
    }

    private long cycleOf(Answer answer) {
        assertEquals(200, answer.status(), answer.body());
        JsonObject event = JsonParser.parseString(answer.body()).getAsJsonObject().getAsJsonObject("event");
        assertTrue(event.get("published").getAsBoolean());
        return event.get("cycle").getAsLong();
    }

    private static List<String> awaitWrites(FakeObserver observer, int count) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            synchronized (observer) {
                if (observer.writes.size() >= count) {
                    return new ArrayList<>(observer.writes);
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("fewer than " + count + " records written");
    }

    @Test
    void aPublishReachesItsSubscribersOnceWithItsDataAndCreatesNoEmitter() throws Exception {
        FakeObserver a = new FakeObserver();
        FakeObserver other = new FakeObserver();
        inst.open(inst.pushSpec(b("{\"type\":\"comet\",\"events\":[\"ch-1\"]}")), a);
        inst.open(inst.pushSpec(b("{\"type\":\"comet\",\"events\":[\"other\"]}")), other);
        assertEquals("{\"event\":{\"name\":\"ch-1\",\"cycle\":1,\"published\":true}}",
                publish("{\"name\":\"ch-1\",\"data\":{\"seq\":7,\"sentUs\":1700000000000123}}").body());
        assertEquals(2, cycleOf(publish("{\"name\":\"ch-1\"}")));
        List<String> writes = awaitWrites(a, 2);
        assertEquals(2, writes.size());
        JsonObject first = JsonParser.parseString(writes.get(0)).getAsJsonObject().getAsJsonObject("response")
                .getAsJsonObject("event");
        assertTrue(writes.get(0).startsWith("{\"response\":{\"event\":{\"name\":\"ch-1\",\"cycle\":1,"
                + "\"data\":{\"seq\":7,\"sentUs\":1700000000000123},\"timings\":"), writes.get(0));
        assertEquals(1, first.getAsJsonObject("connections").get("total").getAsInt());
        JsonObject second = JsonParser.parseString(writes.get(1)).getAsJsonObject().getAsJsonObject("response")
                .getAsJsonObject("event");
        assertEquals(2, second.get("cycle").getAsLong());
        assertFalse(second.has("data"), "no data given, none carried");
        assertEquals(0, other.writes.size());
        assertEquals(0, inst.events().list().size(), "no emitter");
    }

    @Test
    void idsContinueTheEmitterElseCountPerNameAndTheCapDoesNotApply() {
        assertEquals("created", inst.events().set("only", 3_600_000));
        assertEquals(EventManager.FULL, inst.events().set("x", 3_600_000));
        for (int i = 1; i <= 20; i++) {
            assertEquals(1, cycleOf(publish("{\"name\":\"p" + i + "\",\"data\":" + i + "}")));
        }
        assertEquals(1, cycleOf(publish("{\"name\":\"only\"}")), "the emitter's numbering");
        inst.events().emitter("only").emit();
        assertEquals(3, cycleOf(publish("{\"name\":\"only\"}")));
        assertEquals(2, cycleOf(publish("{\"name\":\"p1\"}")));
        inst.events().remove("only");
        assertEquals("created", inst.events().set("p1", 3_600_000));
        assertEquals(3, inst.events().emitter("p1").emit().id, "a new emitter continues the name's publishes");
        inst.answer(Endpoint.EVENT_CLEAR, null, b(""));
        assertEquals(1, cycleOf(publish("{\"name\":\"p2\"}")), "clear forgets the counts");
    }

    @Test
    void oneNamesPublishesArriveInCycleOrder() throws Exception {
        FakeObserver a = new FakeObserver();
        inst.open(inst.pushSpec(b("{\"type\":\"comet\",\"events\":[\"ch\"]}")), a);
        for (int i = 1; i <= 200; i++) {
            publish("{\"name\":\"ch\",\"data\":" + i + "}");
        }
        List<String> writes = awaitWrites(a, 200);
        for (int i = 0; i < 200; i++) {
            JsonObject event = JsonParser.parseString(writes.get(i)).getAsJsonObject().getAsJsonObject("response")
                    .getAsJsonObject("event");
            assertEquals(i + 1, event.get("cycle").getAsLong());
            assertEquals(i + 1, event.get("data").getAsInt());
        }
    }

    @Test
    void badBodiesAre400() {
        for (String body : new String[] {"", "[]", "\"a\"", "{\"name\":\"bad name\"}", "{\"name\":\"\"}",
                "{\"data\":1}", "{\"name\":5}", "{\"name\":\"a\",\"data\":", "{\"name\":\"" + new String(new char[65]).replace("\0", "x") + "\"}"}) {
            Answer answer = publish(body);
            assertEquals(400, answer.status(), body);
            assertTrue(answer.body().contains("error"), body);
        }
        assertNull(inst.events().emitter("a"));
    }
}
