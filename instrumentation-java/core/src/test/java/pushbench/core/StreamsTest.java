package pushbench.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The SSE and WebSocket streams' core (docs/protocol.md "Server-Sent Events and WebSocket"): the replay
 * buffer and its bound, the gap record, the SSE event framing and its ids, the backlog bound that cuts a
 * client that does not read, and the subscription rules; with real emit cycles and the real writer threads.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StreamsTest {
    private static final long NEVER = 3_600_000; // an emitter frequency that never fires during a test
    private static final int REPLAY = 3;
    private static final long BACKLOG = 4096;

    private Instrumentation inst;

    @BeforeEach
    void setUp() {
        inst = new Instrumentation(Clock.SYSTEM, 16, new Bodies(10_000, 0, 1), new Streams(REPLAY, BACKLOG));
    }

    @AfterEach
    void tearDown() {
        inst.shutdown();
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met in time");
            Thread.sleep(2);
        }
    }

    private void emit(String name, int cycles) {
        if (inst.events().emitter(name) == null) {
            inst.events().set(name, NEVER);
        }
        for (int i = 0; i < cycles; i++) {
            inst.events().emitter(name).emit();
        }
    }

    private static PushSpec sse(String events, String lastEventId) throws BadInput {
        return Validation.sseQuery(new String[] {"sse"}, new String[] {events}, lastEventId);
    }

    /** One SSE event's id and record, checking its framing: "id: ..\ndata: ..\n\n". */
    private static String[] event(String text) {
        assertTrue(text.startsWith("id: ") && text.endsWith("\n\n"), text);
        String[] lines = text.substring(0, text.length() - 2).split("\n", -1);
        assertEquals(2, lines.length, text);
        assertTrue(lines[1].startsWith("data: "), text);
        return new String[] {lines[0].substring(4), lines[1].substring(6)};
    }

    private static JsonObject response(String json) {
        return JsonParser.parseString(json).getAsJsonObject().getAsJsonObject("response");
    }

    @Test
    void theReplayBufferGivesTheLastNCyclesAfterTheCursorAndTheRestAsAGap() {
        PullHistory history = new PullHistory();
        for (long id = 1; id <= 10; id++) {
            history.record(id, 1000 + id);
        }
        PullHistory.Replay beyond = history.replay(2, 3);
        assertEquals(Arrays.asList(8L, 9L, 10L), ids(beyond));
        assertTrue(beyond.hasGap());
        assertEquals(3, beyond.gapFrom);
        assertEquals(7, beyond.gapTo);
        assertEquals(1008, beyond.cycles.get(0)[1], "each kept cycle keeps when it started");
        PullHistory.Replay within = history.replay(8, 3);
        assertEquals(Arrays.asList(9L, 10L), ids(within));
        assertFalse(within.hasGap());
        assertEquals(0, ids(history.replay(10, 3)).size(), "a cursor at the latest cycle misses nothing");
        assertFalse(history.replay(40, 3).hasGap(), "a cursor past the latest (ids restarted) misses nothing");
        PullHistory.Replay none = history.replay(2, 0);
        assertEquals(0, none.cycles.size());
        assertEquals(3, none.gapFrom);
        assertEquals(10, none.gapTo, "a bound of 0: every cycle missed is one gap");
        PullHistory short4 = new PullHistory(4);
        for (long id = 1; id <= 10; id++) {
            short4.record(id, id);
        }
        PullHistory.Replay kept = short4.replay(0, 100);
        assertEquals(Arrays.asList(7L, 8L, 9L, 10L), ids(kept), "never more than the history keeps");
        assertEquals(1, kept.gapFrom);
        assertEquals(6, kept.gapTo);
    }

    private static List<Long> ids(PullHistory.Replay replay) {
        List<Long> ids = new ArrayList<>();
        for (long[] cycle : replay.cycles) {
            ids.add(cycle[0]);
        }
        return ids;
    }

    @Test
    void aResumedSseStreamGetsTheGapThenTheLastNCyclesThenTheLiveOnesEachWithTheStreamsCursor() throws Exception {
        emit("r1", 6);
        FakeObserver client = new FakeObserver();
        inst.open(sse("r1,r2", "r1:1"), client);
        waitFor(() -> client.writeCount() == 1 + REPLAY);
        emit("r1", 1);
        emit("r2", 1);
        waitFor(() -> client.writeCount() == 3 + REPLAY);
        List<String> ids = new ArrayList<>();
        List<JsonObject> responses = new ArrayList<>();
        synchronized (client) {
            for (String text : client.writes) {
                String[] event = event(text);
                ids.add(event[0]);
                responses.add(response(event[1]));
                assertFalse(event[1].contains("error") || event[1].contains("timeout"), event[1]);
                assertEquals("{\"type\":\"sse\",\"events\":[\"r1\",\"r2\"],\"cursor\":{\"r1\":1}}",
                        JsonParser.parseString(event[1]).getAsJsonObject().get("request").toString());
            }
        }
        assertEquals(Arrays.asList("r1:3,r2:0", "r1:4,r2:0", "r1:5,r2:0", "r1:6,r2:0", "r1:7,r2:0", "r1:7,r2:1"), ids);
        assertEquals("{\"name\":\"r1\",\"from\":2,\"to\":3,\"skipped\":2}", responses.get(0).get("gap").toString());
        for (int i = 1; i <= REPLAY; i++) {
            JsonObject replay = responses.get(i).getAsJsonObject("replay");
            assertEquals(3 + i, replay.get("cycle").getAsLong());
            assertEquals(Arrays.asList("name", "cycle", "timings"), new ArrayList<>(replay.keySet()), "in no snapshot");
        }
        assertEquals(7, responses.get(4).getAsJsonObject("event").get("cycle").getAsLong());
        assertEquals("r2", responses.get(5).getAsJsonObject("event").get("name").getAsString());
        assertEquals(1, inst.requests().count(PushSpec.Type.SSE));
    }

    @Test
    void aStreamWhoseClientDoesNotReadIsCutAtTheBacklogBoundCountedAndEndedAfterItsBlockedWrite() throws Exception {
        FakeObserver silent = new FakeObserver();
        CountDownLatch gate = new CountDownLatch(1);
        silent.blockFirstWrite = gate;
        silent.enteredWrite = new CountDownLatch(1);
        FakeObserver reader = new FakeObserver();
        inst.open(sse("slow", null), silent);
        inst.open(Validation.wsSubscription("{\"type\":\"ws\",\"events\":[\"slow\"]}".getBytes(StandardCharsets.UTF_8)), reader);
        int emitted = 0;
        while (inst.requests().count(PushSpec.Type.SSE) == 1) {
            emit("slow", 1);
            emitted++;
            assertTrue(silent.enteredWrite.await(5, TimeUnit.SECONDS));
            // The reader's queue is under the same bound: it must have taken each record before the next
            // comes, or a slow writer thread would cut the reader too.
            final int sent = emitted;
            waitFor(() -> reader.writeCount() == sent);
            assertTrue(emitted < BACKLOG, "the stream was never cut");
        }
        final int cycles = emitted;
        assertEquals(1, inst.streams().status().get("dropped").getAsLong());
        assertEquals(1, silent.aborts.get(), "its connection closed at once");
        assertEquals(0, silent.completions.get(), "its end waits for the write in progress");
        emit("slow", 5);
        waitFor(() -> reader.writeCount() == cycles + 5);
        assertEquals(1, inst.requests().count(PushSpec.Type.WS), "the reading stream is still held, and got every cycle");
        gate.countDown();
        waitFor(() -> silent.completions.get() == 1);
        assertEquals(1, silent.writeCount(), "nothing queued behind the blocked write was written");
        assertFalse(silent.wroteAfterEnd);
        int length = silent.writes.get(0).length();
        assertTrue(cycles * (length + 2) > BACKLOG && (cycles - 1) * length <= BACKLOG,
                "cut at the first write past " + BACKLOG + " bytes: " + cycles + " records of about " + length);
        assertEquals(0, reader.aborts.get());
    }

    @Test
    void aReplayLargerThanTheBacklogBoundCutsAResumedStreamWhoseClientDoesNotRead() throws Exception {
        Instrumentation deep = new Instrumentation(Clock.SYSTEM, 16, new Bodies(10_000, 0, 1), new Streams(64, BACKLOG));
        CountDownLatch gate = new CountDownLatch(1);
        try {
            deep.events().set("deep", NEVER);
            for (int i = 0; i < 64; i++) {
                deep.events().emitter("deep").emit();
            }
            FakeObserver silent = new FakeObserver();
            silent.blockFirstWrite = gate;
            silent.enteredWrite = new CountDownLatch(1);
            deep.open(sse("deep", "deep:1"), silent);
            // The replay (63 records of about 250 bytes, 4 times the bound) is queued at registration, and no
            // write of it ends: whether the writer took its first record before the rest were queued or not, the
            // queue passes the bound, so the stream is cut there, counted, its connection closed.
            waitFor(() -> deep.streams().status().get("dropped").getAsLong() == 1);
            assertEquals(0, deep.requests().count(PushSpec.Type.SSE), "not held");
            assertEquals(1, silent.aborts.get());
        } finally {
            gate.countDown();
            deep.shutdown();
        }
    }

    @Test
    void aClearedWebSocketIsToldWhyBeforeItsLastRecord() throws Exception {
        FakeObserver ws = new FakeObserver();
        inst.open(Validation.wsSubscription("{\"type\":\"ws\",\"events\":[]}".getBytes(StandardCharsets.UTF_8)), ws);
        assertEquals(1, inst.requests().clearAll("clear"));
        waitFor(() -> ws.completions.get() == 1);
        assertEquals("clear", ws.clearedFor);
        assertEquals("{\"clear\":{\"reason\":\"clear\"}}", response(ws.writes.get(0)).toString());
        assertFalse(ws.writes.get(0).endsWith("\n"), "a WebSocket frame is the record alone");
    }

    @Test
    void sseQueriesAndLastEventIdsAreCheckedAsTheProtocolSays() throws Exception {
        String[][] bad = {
            {null, "x", null}, {"sse,sse", "x", null}, {"comet", "x", null}, {"ws", "x", null}, {"pigeon", "x", null},
            {"sse", null, null}, {"sse", "a b", null}, {"sse", "a,,b", null}, {"sse", "x", "garbage"},
            {"sse", "x", "x:-1"}, {"sse", "x", "x:1,x:2"}, {"sse", "x", "x:9007199254740992"},
        };
        for (String[] query : bad) {
            String[] types = query[0] == null ? null : query[0].split(",");
            String[] events = query[1] == null ? null : new String[] {query[1]};
            BadInput refused = assertThrows(BadInput.class, () -> Validation.sseQuery(types, events, query[2]),
                    Arrays.toString(query));
            assertEquals(400, refused.status());
        }
        assertTrue(assertThrows(BadInput.class, () -> sse(String.join(",", names(17)), null)).getMessage().contains("16"));
        assertTrue(assertThrows(BadInput.class, () -> Validation.sseQuery(new String[] {"comet"}, new String[] {"x"}, null))
                .getMessage().contains("POST /request"));
        PushSpec none = sse("", "");
        assertEquals("{\"type\":\"sse\",\"events\":[]}", none.echo().toString());
        assertNull(none.cursor(), "an empty Last-Event-ID resumes nothing");
        assertEquals("{\"type\":\"sse\",\"events\":[\"a\",\"a\"],\"cursor\":{\"a\":9007199254740991}}",
                sse("a,a", "a:9007199254740991").echo().toString());
    }

    private static List<String> names(int count) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            names.add("e" + i);
        }
        return names;
    }

    @Test
    void aWebSocketSubscriptionIsTypeWsWithAnOptionalCursor() throws Exception {
        PushSpec resumed = Validation.wsSubscription(
                "{\"type\":\"ws\",\"events\":[\"a\"],\"duration\":5,\"cursor\":{\"a\":3}}".getBytes(StandardCharsets.UTF_8));
        assertEquals("{\"type\":\"ws\",\"events\":[\"a\"],\"duration\":5,\"cursor\":{\"a\":3}}", resumed.echo().toString());
        for (String message : new String[] {"{\"type\":\"comet\",\"events\":[]}", "{\"type\":\"sse\",\"events\":[]}",
            "{\"events\":[]}", "{\"type\":\"ws\",\"events\":[\"a b\"]}", "{\"type\":\"ws\",\"events\":[],\"cursor\":{\"x\":-1}}",
            "[1,2]", "{\"type\":"}) {
            assertEquals(400, assertThrows(BadInput.class,
                    () -> Validation.wsSubscription(message.getBytes(StandardCharsets.UTF_8)), message).status());
        }
        assertTrue(assertThrows(BadInput.class, () -> Validation.pushRequest(
                "{\"type\":\"ws\",\"events\":[]}".getBytes(StandardCharsets.UTF_8))).getMessage().contains("upgrade"),
                "POSTed, type ws says where it is asked for");
    }

    @Test
    void theSettingsAreReadAsTheNodeServerReadsThem() {
        assertEquals(0, Streams.whole("0", 0, 1024, 100));
        assertEquals(1024, Streams.whole("1024", 0, 1024, 100));
        assertEquals(100, Streams.whole("1025", 0, 1024, 100));
        assertEquals(100, Streams.whole("", 0, 1024, 100));
        assertEquals(100, Streams.whole("-1", 0, 1024, 100));
        assertEquals(7, Streams.whole(" 7 ", 1, Long.MAX_VALUE, 9));
    }
}
