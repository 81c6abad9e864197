package pushbench.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request's timings.created and the emit cycles that reach it (docs/protocol.md "Records"): every cycle
 * that starts after the stamp has the request in its snapshot. The clock here plays the thread that opens a
 * request being descheduled right after a reading of the clock: on that reading it moves 10 ms on and lets
 * an emit cycle start on another thread before it returns. A stamp read before the request is on the
 * cycle's list would say the request was there 10 ms before a cycle that never reached it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JoinStampTest {
    private static final long NEVER = 3_600_000; // an emitter frequency that never fires during a test

    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final AtomicReference<Thread> opener = new AtomicReference<>();
    private final ExecutorService other = Executors.newSingleThreadExecutor();
    private volatile Future<EmitCycle> cycle;
    private Instrumentation inst;

    /** The opener's next reading of the clock: 10 ms pass and a cycle starts elsewhere before it returns. */
    private long millis() {
        long reading = now.get();
        if (opener.compareAndSet(Thread.currentThread(), null)) {
            now.addAndGet(10);
            cycle = other.submit(() -> inst.events().emitter("e1").emit());
            try {
                cycle.get(300, TimeUnit.MILLISECONDS); // done unless it waits for the request being opened
            } catch (TimeoutException e) {
                // the cycle has the request in its snapshot and waits for its lock: it is delivered after open
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return reading;
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        other.shutdownNow();
        assertTrue(other.awaitTermination(10, TimeUnit.SECONDS));
        inst.shutdown();
    }

    private void aCycleAfterTheStampReachesTheRequest(PushSpec spec) throws Exception {
        inst = new Instrumentation(this::millis);
        inst.events().set("e1", NEVER);
        FakeObserver observer = new FakeObserver();
        opener.set(Thread.currentThread());
        inst.open(spec, observer);
        EmitCycle started = cycle.get(10, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (observer.writeCount() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5); // a queued stream's record goes out on a writer thread
        }
        List<JsonObject> records = observer.records();
        assertEquals(1, records.size(), "the cycle that started 10 ms after the clock reading reached the request: " + records);
        JsonObject record = records.get(0);
        JsonObject event = record.getAsJsonObject("response").getAsJsonObject("event");
        assertEquals(started.id, event.get("cycle").getAsLong());
        long requestCreated = record.getAsJsonObject("timings").get("created").getAsLong();
        long cycleCreated = event.getAsJsonObject("timings").get("created").getAsLong();
        assertTrue(requestCreated <= cycleCreated, "the request's stamp " + requestCreated + " is not after the cycle it got ("
                + cycleCreated + ")");
    }

    @Test
    void aCometStream() throws Exception {
        aCycleAfterTheStampReachesTheRequest(Validation.pushRequest(b("{\"type\":\"comet\",\"events\":[\"e1\"]}")));
    }

    @Test
    void aWebSocketStream() throws Exception {
        aCycleAfterTheStampReachesTheRequest(Validation.wsSubscription(b("{\"type\":\"ws\",\"events\":[\"e1\"]}")));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
