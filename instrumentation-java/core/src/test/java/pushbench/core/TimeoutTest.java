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

    @Test
    void byDefaultTheCoreTimerFiresAtTheDuration() throws Exception {
        PushRequest request = poll(3_000_000, new FakeObserver());
        long delay = request.timeout().getDelay(TimeUnit.MILLISECONDS);
        assertTrue(delay > 3_000_000 - 60_000 && delay <= 3_000_000, "timer in " + delay + " ms");
    }

    @Test
    void aHandlerWithItsOwnTimeoutGetsTheGraceAndExpiresThePollItself() throws Exception {
        FakeObserver observer = new FakeObserver();
        observer.grace = 60_000; // a handler whose container times polls out itself
        PushRequest request = poll(3_000_000, observer);
        long delay = request.timeout().getDelay(TimeUnit.MILLISECONDS);
        assertTrue(delay > 3_000_000 && delay <= 3_060_000, "fallback timer in " + delay + " ms");
        now.addAndGet(3_000_000);
        assertEquals(0, request.remainingMillis());
        assertTrue(request.expire(), "the container's timeout answers the poll");
        assertTrue(request.timeout().isCancelled(), "the fallback timer is dropped once the poll is answered");
        assertEquals(1, observer.writeCount());
        assertEquals(1, observer.completions.get());
        assertFalse(request.expire());
        assertEquals(0, inst.requests().openCount());
    }

    @Test
    void theFallbackOfAHandlerWithATickFiresOnTheTick() throws Exception {
        FakeObserver observer = new FakeObserver();
        observer.grace = 200;
        observer.tick = 250;
        now.addAndGet(30); // the clock starts on a multiple of 250
        PushRequest request = poll(3_000_000, observer);
        // due at 30 + 3,000,000 + 200 = 3,000,230 past the start; the next tick is 3,000,250: 3,000,220 from now
        long delay = request.timeout().getDelay(TimeUnit.MILLISECONDS);
        assertTrue(delay > 3_000_220 - 60_000 && delay <= 3_000_220, "fallback timer in " + delay + " ms");
        now.addAndGet(270);
        PushRequest onTheTick = poll(3_000_000, observer); // due at 300 + 3,000,000 + 200: on a tick already
        delay = onTheTick.timeout().getDelay(TimeUnit.MILLISECONDS);
        assertTrue(delay > 3_000_200 - 60_000 && delay <= 3_000_200, "fallback timer in " + delay + " ms");
        observer.grace = 0;
        PushRequest own = poll(3_000_000, observer);
        delay = own.timeout().getDelay(TimeUnit.MILLISECONDS);
        assertTrue(delay > 3_000_000 - 60_000 && delay <= 3_000_000, "no grace, no tick: " + delay + " ms");
    }

    @Test
    void remainingMillisCountsDownFromTheOpen() throws Exception {
        PushRequest request = poll(10_000, new FakeObserver());
        assertEquals(10_000, request.remainingMillis());
        now.addAndGet(9_960);
        assertEquals(40, request.remainingMillis(), "a container timeout 40 ms early waits that long");
        now.addAndGet(100);
        assertEquals(-60, request.remainingMillis());
        String comet = "{\"type\":\"comet\",\"events\":[\"t\"]}";
        PushRequest stream = inst.open(inst.pushSpec(comet.getBytes(StandardCharsets.UTF_8)), new FakeObserver());
        assertEquals(Long.MAX_VALUE, stream.remainingMillis(), "a comet stream's duration is never up");
    }
}
