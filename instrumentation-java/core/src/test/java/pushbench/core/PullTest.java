package pushbench.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Short polling (docs/protocol.md "Pull"): validation, the cycle history, and pulls racing the emitter. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PullTest {
    private static final long NEVER = 3_600_000; // an emitter frequency that never fires during a test

    private Instrumentation inst;

    @BeforeEach
    void setUp() {
        inst = new Instrumentation();
    }

    @AfterEach
    void tearDown() {
        inst.shutdown();
    }

    private static PushSpec spec(String json) throws BadInput {
        return Validation.pushRequest(json.getBytes(StandardCharsets.UTF_8));
    }

    private JsonObject pull(String json) throws BadInput {
        Answer answer = inst.requests().pull(spec(json));
        assertEquals(200, answer.status());
        return JsonParser.parseString(answer.body()).getAsJsonObject();
    }

    private static JsonObject pullPart(JsonObject record) {
        return record.getAsJsonObject("response").getAsJsonObject("pull");
    }

    @Test
    void validatesTheCursorAndEchoesIt() throws BadInput {
        PushSpec ok = spec("{\"type\":\"pull\",\"events\":[\"e1\"],\"cursor\":{\"e1\":4},\"duration\":-3}");
        assertTrue(ok.isPull());
        assertEquals("{\"type\":\"pull\",\"events\":[\"e1\"],\"cursor\":{\"e1\":4}}", Json.write(ok.echo()));
        assertEquals(null, spec("{\"type\":\"pull\",\"events\":[\"e1\"]}").cursor());
        for (String cursor : new String[] {"[]", "5", "\"x\"", "{\"e1\":-1}", "{\"e1\":1.5}", "{\"e1\":\"3\"}",
                "{\"bad name\":1}", "{\"e1\":9007199254740992}"}) {
            assertThrows(BadInput.class, () -> spec("{\"type\":\"pull\",\"events\":[\"e1\"],\"cursor\":" + cursor + "}"),
                    cursor);
        }
    }

    @Test
    void firstPullStartsTheWindowThenEveryCycleOnceInOrder() throws BadInput {
        inst.events().set("e1", NEVER);
        EventEmitter emitter = inst.events().emitter("e1");
        emitter.emit();
        JsonObject first = pullPart(pull("{\"type\":\"pull\",\"events\":[\"e1\",\"e2\"]}"));
        assertEquals(0, first.getAsJsonArray("events").size());
        assertEquals("{\"e1\":1,\"e2\":0}", Json.write(first.getAsJsonObject("cursor")));
        emitter.emit();
        emitter.emit();
        JsonObject record = pull("{\"type\":\"pull\",\"events\":[\"e1\",\"e2\"],\"cursor\":{\"e1\":1,\"e2\":0}}");
        JsonObject second = pullPart(record);
        JsonArray events = second.getAsJsonArray("events");
        assertEquals(2, events.size());
        assertEquals(2, events.get(0).getAsJsonObject().get("cycle").getAsLong());
        assertEquals(3, events.get(1).getAsJsonObject().get("cycle").getAsLong());
        JsonObject timings = events.get(0).getAsJsonObject().getAsJsonObject("timings");
        assertEquals(timings.get("sent").getAsLong() - timings.get("created").getAsLong(), timings.get("duration").getAsLong());
        assertEquals("{\"e1\":3,\"e2\":0}", Json.write(second.getAsJsonObject("cursor")));
        assertEquals(0, second.get("skipped").getAsInt());
        assertEquals(1, record.getAsJsonObject("connections").get("start").getAsInt());
        assertFalse(record.toString().contains("error") || record.toString().contains("timeout"));
        assertEquals(0, inst.requests().openCount(), "a pull is never held");
    }

    @Test
    void keepsTheLastCyclesAndCountsTheSkippedOnesAndStartsOverWhenIdsRestart() {
        PullHistory history = new PullHistory(3);
        for (long id = 1; id <= 10; id++) {
            history.record(id, id * 100);
        }
        JsonArray events = new JsonArray();
        JsonObject cursor = new JsonObject();
        assertEquals(5, history.answer("a", 2L, 2000, events, cursor));
        assertEquals(3, events.size());
        assertEquals(10, cursor.get("a").getAsLong());
        history.record(1, 5000);
        assertEquals(1, history.latest());
    }

    @Test
    void pullsRacingTheEmitterGetEveryCycleOnce() throws Exception {
        inst.events().set("e1", NEVER);
        EventEmitter emitter = inst.events().emitter("e1");
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<Long>>> clients = new ArrayList<>();
            for (int c = 0; c < 3; c++) {
                clients.add(threads.submit(() -> {
                    List<Long> got = new ArrayList<>();
                    long cursor = 0;
                    for (int i = 0; i < 400; i++) {
                        JsonObject part = pullPart(pull("{\"type\":\"pull\",\"events\":[\"e1\"],\"cursor\":{\"e1\":" + cursor + "}}"));
                        for (JsonElement e : part.getAsJsonArray("events")) {
                            got.add(e.getAsJsonObject().get("cycle").getAsLong());
                        }
                        cursor = part.getAsJsonObject("cursor").get("e1").getAsLong();
                    }
                    return got;
                }));
            }
            for (int i = 0; i < 300; i++) {
                emitter.emit();
            }
            for (Future<List<Long>> client : clients) {
                List<Long> got = client.get();
                Set<Long> unique = new HashSet<>(got);
                assertEquals(got.size(), unique.size(), "none twice");
                for (int i = 1; i < got.size(); i++) {
                    assertEquals(got.get(i - 1) + 1, got.get(i).longValue(), "in order, none lost between pulls");
                }
            }
            JsonObject tail = pullPart(pull("{\"type\":\"pull\",\"events\":[\"e1\"],\"cursor\":{\"e1\":0}}"));
            assertEquals(300, tail.getAsJsonArray("events").size(), "all 300 cycles kept (below the 1024 kept)");
        } finally {
            threads.shutdownNow();
        }
    }
}
