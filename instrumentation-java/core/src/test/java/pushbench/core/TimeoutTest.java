package pushbench.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Who times a poll out: the core's timer, or a handler's container first with the timer as fallback. */
class TimeoutTest {
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final Instrumentation inst = new Instrumentation(now::get);

    @AfterEach
    void tearDown() {
        inst.shutdown();
    }

    private PushRequest poll(long duration, RequestObserver observer) throws BadInput {
        String body = "{\"type\":\"poll\",\"events\":[\"t\"],\"duration\":" + duration + "}";
        return inst.open(inst.pushSpec(body.getBytes(StandardCharsets.UTF_8)), observer);
    }

    /** Counts writes and completions; times nothing out itself. */
    private static class CountingObserver implements RequestObserver {
        final AtomicLong writes = new AtomicLong();
        final AtomicLong completions = new AtomicLong();

        @Override
        public void write(String text) {
            writes.incrementAndGet();
        }

        @Override
        public void complete() {
            completions.incrementAndGet();
        }
    }

    /** A handler whose container times polls out itself, with the core's timer as its fallback. */
    private static final class GracefulObserver extends CountingObserver {
        @Override
        public long timeoutGraceMillis() {
            return 60_000;
        }
    }

    @Test
    void byDefaultTheCoreTimerFiresAtTheDuration() throws Exception {
        PushRequest request = poll(3_000_000, new CountingObserver());
        long delay = request.timeout().getDelay(TimeUnit.MILLISECONDS);
        assertTrue(delay > 3_000_000 - 60_000 && delay <= 3_000_000, "timer in " + delay + " ms");
    }

    @Test
    void aHandlerWithItsOwnTimeoutGetsTheGraceAndExpiresThePollItself() throws Exception {
        GracefulObserver observer = new GracefulObserver();
        PushRequest request = poll(3_000_000, observer);
        long delay = request.timeout().getDelay(TimeUnit.MILLISECONDS);
        assertTrue(delay > 3_000_000 && delay <= 3_060_000, "fallback timer in " + delay + " ms");
        now.addAndGet(3_000_000);
        assertEquals(0, request.remainingMillis());
        assertTrue(request.expire(), "the container's timeout answers the poll");
        assertTrue(request.timeout().isCancelled(), "the fallback timer is dropped once the poll is answered");
        assertEquals(1, observer.writes.get());
        assertEquals(1, observer.completions.get());
        assertFalse(request.expire());
        assertEquals(0, inst.requests().openCount());
    }

    @Test
    void remainingMillisCountsDownFromTheOpen() throws Exception {
        PushRequest request = poll(10_000, new CountingObserver());
        assertEquals(10_000, request.remainingMillis());
        now.addAndGet(9_960);
        assertEquals(40, request.remainingMillis(), "a container timeout 40 ms early waits that long");
        now.addAndGet(100);
        assertEquals(-60, request.remainingMillis());
        String comet = "{\"type\":\"comet\",\"events\":[\"t\"]}";
        PushRequest stream = inst.open(inst.pushSpec(comet.getBytes(StandardCharsets.UTF_8)), new CountingObserver());
        assertEquals(Long.MAX_VALUE, stream.remainingMillis(), "a comet stream's duration is never up");
    }
}
