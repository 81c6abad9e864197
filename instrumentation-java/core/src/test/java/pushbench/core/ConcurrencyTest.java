package pushbench.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Many threads against the request manager and emitters, with observers that record every write. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConcurrencyTest {
    private static final long NEVER = 3_600_000; // an emitter frequency that never fires during a test
    private static final int THREADS = 8;

    private Instrumentation inst;
    private ExecutorService pool;

    @BeforeEach
    void setUp() {
        inst = new Instrumentation();
        pool = Executors.newFixedThreadPool(THREADS + 2);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        inst.shutdown();
    }

    private static PushSpec spec(String json) throws BadInput {
        return Validation.pushRequest(json.getBytes(StandardCharsets.UTF_8));
    }

    private static final class Held {
        final PushRequest request;
        final FakeObserver observer;

        Held(PushRequest request, FakeObserver observer) {
            this.request = request;
            this.observer = observer;
        }
    }

    private Held open(String json) throws BadInput {
        FakeObserver observer = new FakeObserver();
        PushRequest request = inst.open(spec(json), observer);
        observer.request = request;
        return new Held(request, observer);
    }

    private static void abandon(Held held) {
        held.request.abandon();
        held.observer.abandoned = true;
    }

    private static JsonObject event(JsonObject record) {
        return record.getAsJsonObject("response").getAsJsonObject("event");
    }

    @Test
    void emitterOver10kCometsWhileEightThreadsAddAndRemove() throws Exception {
        inst.events().set("e1", NEVER);
        EventEmitter emitter = inst.events().emitter("e1");
        List<Held> initial = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            initial.add(open("{\"type\":\"comet\",\"events\":[\"e1\"]}"));
        }
        // Threads abandon only from the second half of the initial set, so the first 5,000 stay open
        // throughout and must receive every single cycle exactly once.
        List<Held> removable = new ArrayList<>(initial.subList(5_000, 10_000));
        Collections.shuffle(removable);
        List<Held> added = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean running = new AtomicBoolean(true);
        Map<Long, Integer> totals = new ConcurrentHashMap<>();
        CountDownLatch ready = new CountDownLatch(THREADS);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int slice = t;
            workers.add(pool.submit(() -> {
                ready.countDown();
                int next = slice;
                // Paced and bounded: the workers overlap the emit cycles without growing the set forever.
                for (int i = 0; i < 2_000 && running.get(); i++) {
                    Thread.sleep(1);
                    Held fresh = open("{\"type\":\"comet\",\"events\":[\"e1\"]}");
                    added.add(fresh);
                    if (next < removable.size()) {
                        abandon(removable.get(next));
                        next += THREADS;
                    }
                    if (ThreadLocalRandom.current().nextInt(4) == 0) {
                        abandon(fresh);
                    }
                }
                return null;
            }));
        }
        ready.await();
        int cycles = 20;
        for (int c = 0; c < cycles; c++) {
            EmitCycle cycle = emitter.emit();
            totals.put(cycle.id, cycle.total);
        }
        running.set(false);
        for (Future<?> worker : workers) {
            worker.get();
        }

        List<Held> everyone = new ArrayList<>(initial);
        everyone.addAll(added);
        Map<Long, Set<Integer>> placesByCycle = new HashMap<>();
        for (Held held : everyone) {
            FakeObserver observer = held.observer;
            assertFalse(observer.overlapped, "two writes overlapped on one response");
            assertFalse(observer.wroteAfterEnd, "a record was written after the request was abandoned");
            long previous = 0;
            for (JsonObject record : observer.records()) {
                JsonObject event = event(record);
                long id = event.get("cycle").getAsLong();
                assertTrue(id > previous, "a request got a cycle twice or out of order");
                previous = id;
                int place = event.getAsJsonObject("connections").get("place").getAsInt();
                int total = event.getAsJsonObject("connections").get("total").getAsInt();
                assertEquals(totals.get(id).intValue(), total);
                assertTrue(place >= 1 && place <= total, "place out of 1..total");
                assertTrue(placesByCycle.computeIfAbsent(id, k -> new HashSet<>()).add(place),
                        "place " + place + " given twice in cycle " + id);
            }
        }
        for (Held held : initial.subList(0, 5_000)) {
            List<JsonObject> records = held.observer.records();
            assertEquals(cycles, records.size(), "an always-open comet missed or doubled a cycle");
            for (int c = 0; c < cycles; c++) {
                assertEquals(c + 1, event(records.get(c)).get("cycle").getAsLong());
            }
        }
        assertTrue(added.size() > 0);
        int stillOpen = 0;
        for (Held held : everyone) {
            if (held.request.isOpen()) {
                stillOpen++;
            }
        }
        assertEquals(stillOpen, inst.requests().openCount(), "open count drifted from the real state");
    }

    @Test
    void requestAddedDuringCycleGetsTheNextOne() throws Exception {
        inst.events().set("e1", NEVER);
        EventEmitter emitter = inst.events().emitter("e1");
        Held first = open("{\"type\":\"comet\",\"events\":[\"e1\"]}");
        first.observer.enteredWrite = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        first.observer.blockFirstWrite = release;
        Future<EmitCycle> cycle1 = pool.submit(emitter::emit);
        assertTrue(first.observer.enteredWrite.await(10, TimeUnit.SECONDS));

        // The cycle is stuck writing to "first"; adding a request must not wait for it.
        long began = System.nanoTime();
        Held second = open("{\"type\":\"comet\",\"events\":[\"e1\"]}");
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
        assertTrue(tookMs < 1000, "adding a request waited for the emit cycle (" + tookMs + " ms)");
        release.countDown();
        assertEquals(1, cycle1.get().total);
        assertEquals(0, second.observer.writeCount(), "a request added during a cycle got that cycle");

        emitter.emit();
        List<JsonObject> records = second.observer.records();
        assertEquals(1, records.size());
        assertEquals(2, event(records.get(0)).get("cycle").getAsLong());
        JsonObject connections = event(records.get(0)).getAsJsonObject("connections");
        assertEquals(2, connections.get("total").getAsInt());
        assertEquals(2, connections.get("place").getAsInt());
        assertEquals(2, first.observer.writeCount());
    }

    @Test
    void pollsRacingEventsAndTimeoutsCompleteExactlyOnce() throws Exception {
        inst.events().set("e1", 10);
        List<Held> polls = Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            workers.add(pool.submit(() -> {
                for (int i = 0; i < 250; i++) {
                    int duration = 1 + ThreadLocalRandom.current().nextInt(30);
                    polls.add(open("{\"type\":\"poll\",\"events\":[\"e1\",\"e1\"],\"duration\":" + duration + "}"));
                    if (i % 50 == 0) {
                        Thread.sleep(5);
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get();
        }
        waitUntil(() -> inst.requests().openCount() == 0, "every poll to finish");
        Thread.sleep(100); // let any stray late write happen before checking
        int events = 0;
        int timeouts = 0;
        for (Held held : polls) {
            FakeObserver observer = held.observer;
            assertEquals(1, observer.completions.get(), "a poll was completed other than once");
            assertEquals(1, observer.writeCount(), "a poll got other than exactly one record");
            assertFalse(observer.overlapped);
            JsonObject response = observer.records().get(0).getAsJsonObject("response");
            if (response.has("event")) {
                events++;
            } else {
                assertEquals(held.request.spec().duration().longValue(),
                        response.getAsJsonObject("timeout").get("duration").getAsLong());
                timeouts++;
            }
            assertFalse(held.request.isOpen());
        }
        assertEquals(2_000, events + timeouts);
        assertTrue(events > 0, "no poll got an event");
        assertTrue(timeouts > 0, "no poll timed out");
        assertEquals(0, inst.requests().pollCount());
    }

    @Test
    void clearCompletesEveryRequestExactlyOnceUnderConcurrency() throws Exception {
        inst.events().set("e1", 10);
        inst.events().set("e2", 15);
        List<Held> all = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            all.add(open("{\"type\":\"comet\",\"events\":[\"e1\",\"e2\"]}"));
            all.add(open("{\"type\":\"poll\",\"events\":[\"nobody\"],\"duration\":3600000}"));
        }
        Thread.sleep(50); // emitters are writing to the comets now
        List<Held> toAbandon = new ArrayList<>(all.subList(0, 1_000));
        AtomicInteger abandoned = new AtomicInteger();
        Future<?> abandoner = pool.submit(() -> {
            for (Held held : toAbandon) {
                if (held.request.abandon()) {
                    abandoned.incrementAndGet();
                }
                held.observer.abandoned = true;
            }
        });
        List<Future<Integer>> clears = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            clears.add(pool.submit(() -> inst.requests().clearAll("clear")));
        }
        int cleared = 0;
        for (Future<Integer> clear : clears) {
            cleared += clear.get();
        }
        abandoner.get();
        assertEquals(2, inst.events().clear());
        assertEquals(all.size(), cleared + abandoned.get(), "clear + abandon did not account for everyone");
        assertEquals(0, inst.requests().openCount());
        Thread.sleep(50);
        int clearRecords = 0;
        for (Held held : all) {
            FakeObserver observer = held.observer;
            assertFalse(observer.overlapped);
            assertFalse(observer.wroteAfterEnd);
            assertTrue(observer.completions.get() <= 1, "completed twice");
            List<JsonObject> records = observer.records();
            if (observer.completions.get() == 1) {
                JsonObject last = records.get(records.size() - 1).getAsJsonObject("response");
                assertEquals("clear", last.getAsJsonObject("clear").get("reason").getAsString());
                clearRecords++;
                for (JsonObject record : records.subList(0, records.size() - 1)) {
                    assertNotNull(event(record));
                }
            }
        }
        assertEquals(cleared, clearRecords);
    }

    @Test
    void aFailedWriteDropsTheCometSilently() throws Exception {
        inst.events().set("e1", NEVER);
        EventEmitter emitter = inst.events().emitter("e1");
        Held gone = open("{\"type\":\"comet\",\"events\":[\"e1\"]}");
        Held stays = open("{\"type\":\"comet\",\"events\":[\"e1\"]}");
        gone.observer.failWrites = true;
        emitter.emit();
        assertFalse(gone.request.isOpen());
        assertEquals(1, gone.observer.completions.get());
        assertEquals(1, inst.requests().openCount());
        emitter.emit();
        assertEquals(0, gone.observer.writeCount());
        assertEquals(2, stays.observer.writeCount());
        assertEquals(1, event(stays.observer.records().get(1)).getAsJsonObject("connections").get("total").getAsInt());
    }

    @Test
    void connectionCountsFollowTheProtocol() throws Exception {
        inst.events().set("e1", NEVER);
        EventEmitter emitter = inst.events().emitter("e1");
        Held a = open("{\"type\":\"comet\",\"events\":[\"e1\"]}");
        Held b = open("{\"type\":\"poll\",\"events\":[\"e1\"],\"duration\":60000}");
        Held c = open("{\"type\":\"comet\",\"events\":[]}");
        assertEquals(3, inst.requests().openCount());
        assertEquals(2, inst.requests().cometCount());
        assertEquals(1, inst.requests().pollCount());
        emitter.emit();
        JsonObject pollRecord = b.observer.records().get(0);
        assertEquals(2, pollRecord.getAsJsonObject("connections").get("start").getAsInt());
        assertEquals(3, pollRecord.getAsJsonObject("connections").get("finish").getAsInt());
        assertEquals(2, inst.requests().openCount());
        emitter.emit();
        JsonObject second = a.observer.records().get(1);
        assertEquals(1, second.getAsJsonObject("connections").get("start").getAsInt());
        assertEquals(2, second.getAsJsonObject("connections").get("finish").getAsInt());
        assertEquals(1, event(second).getAsJsonObject("connections").get("total").getAsInt());
        assertEquals(0, c.observer.writeCount());
    }

    @Test
    void emitterSchedulesChangesAndStops() throws Exception {
        assertEquals("created", inst.events().set("tick", 20));
        waitUntil(() -> inst.events().emitter("tick").cycle() >= 3, "three cycles");
        assertEquals("changed", inst.events().set("tick", NEVER));
        Thread.sleep(30); // a cycle already due may still finish
        long after = inst.events().emitter("tick").cycle();
        Thread.sleep(200);
        assertEquals(after, inst.events().emitter("tick").cycle(), "the old schedule kept firing");
        assertEquals("changed", inst.events().set("tick", 20));
        waitUntil(() -> inst.events().emitter("tick").cycle() >= after + 2, "cycle ids to continue");
        assertTrue(inst.events().remove("tick"));
        assertFalse(inst.events().remove("tick"));
    }

    @Test
    void anEmitterSetLaterReachesEarlierSubscribers() throws Exception {
        Held held = open("{\"type\":\"poll\",\"events\":[\"late\"],\"duration\":60000}");
        inst.events().set("late", 10);
        waitUntil(() -> !held.request.isOpen(), "the late emitter to answer the poll");
        assertEquals("late", event(held.observer.records().get(0)).get("name").getAsString());
    }

    @Test
    void shutdownClearsOpenAndLaterRequests() throws Exception {
        Held comet = open("{\"type\":\"comet\",\"events\":[\"e1\"]}");
        inst.shutdown();
        assertEquals(1, comet.observer.completions.get());
        JsonObject clear = comet.observer.records().get(0).getAsJsonObject("response").getAsJsonObject("clear");
        assertEquals("shutdown", clear.get("reason").getAsString());
        Held late = open("{\"type\":\"poll\",\"events\":[\"e1\"],\"duration\":1000}");
        assertEquals(1, late.observer.completions.get());
        assertEquals(0, inst.requests().openCount());
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(5);
        }
    }
}
