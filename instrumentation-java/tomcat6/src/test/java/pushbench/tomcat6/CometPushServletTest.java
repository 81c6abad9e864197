package pushbench.tomcat6;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.catalina.CometEvent.EventSubType;
import org.apache.catalina.CometEvent.EventType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import pushbench.core.Bodies;
import pushbench.core.Clock;
import pushbench.core.Endpoint;
import pushbench.core.Instrumentation;
import pushbench.core.PushSpec;

/** The Tomcat 6 CometProcessor's event handling against a fake connection; the real one is conformance's. */
class CometPushServletTest {
    private Instrumentation inst;
    private CometPushServlet servlet;

    @BeforeEach
    void setUp() {
        inst = new Instrumentation();
        servlet = new CometPushServlet();
        servlet.init(inst);
    }

    @AfterEach
    void tearDown() {
        servlet.destroy();
    }

    private void fire(FakeComet comet, EventType type, EventSubType subType) throws Exception {
        comet.type = type;
        comet.subType = subType;
        servlet.event(comet.event);
    }

    /** BEGIN, then the body in the given pieces, one READ each. */
    private FakeComet post(String uri, String body, String... pieces) throws Exception {
        FakeComet comet = new FakeComet("POST", uri, null, body.getBytes().length);
        fire(comet, EventType.BEGIN, null);
        for (String piece : pieces.length == 0 ? new String[] {body} : pieces) {
            comet.arrive(piece);
            fire(comet, EventType.READ, null);
        }
        return comet;
    }

    private void setEvent(String name) {
        inst.answer(Endpoint.EVENT_SET, null, ("{\"name\":\"" + name + "\",\"frequency\":10}").getBytes());
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met in time");
            Thread.sleep(5);
        }
    }

    @Test
    void getEndpointsAreAnsweredAndClosedInBegin() throws Exception {
        FakeComet timestamp = new FakeComet("GET", "/timestamp", "7", -1);
        fire(timestamp, EventType.BEGIN, null);
        assertEquals(200, timestamp.status);
        assertEquals(7, JsonParser.parseString(timestamp.text()).getAsJsonObject()
                .getAsJsonObject("timestamp").get("client").getAsLong());
        assertEquals(1, timestamp.closes.get());
        // Tomcat then sends END (possibly twice): harmless.
        fire(timestamp, EventType.END, null);
        fire(timestamp, EventType.END, null);
        assertEquals(1, timestamp.closes.get());

        FakeComet wrong = new FakeComet("DELETE", "/status", null, -1);
        fire(wrong, EventType.BEGIN, null);
        assertEquals(405, wrong.status);
        assertEquals("GET", wrong.headers.get("Allow"));
        FakeComet clear = new FakeComet("POST", "/event/clear", null, 0);
        fire(clear, EventType.BEGIN, null);
        assertEquals("{\"clear\":{\"events\":0,\"requests\":0}}", clear.text());
        FakeComet huge = new FakeComet("POST", "/logging", null, 16385);
        fire(huge, EventType.BEGIN, null);
        assertEquals(413, huge.status);
        assertEquals(1, huge.closes.get());
    }

    @Test
    void aBodyInPiecesIsAssembledAcrossReadEvents() throws Exception {
        String body = "{\"name\":\"pieces\",\"frequency\":3600000}";
        FakeComet comet = new FakeComet("POST", "/event/set", null, body.length());
        fire(comet, EventType.BEGIN, null);
        fire(comet, EventType.READ, null); // Tomcat's READ right after BEGIN, before any byte arrived
        assertEquals(0, comet.closes.get());
        comet.arrive(body.substring(0, 9));
        fire(comet, EventType.READ, null);
        assertEquals("", comet.text());
        comet.arrive(body.substring(9));
        fire(comet, EventType.READ, null);
        assertEquals("{\"event\":{\"name\":\"pieces\",\"frequency\":3600000,\"state\":\"created\"}}", comet.text());
        assertEquals(1, comet.closes.get());
    }

    @Test
    void pollIsHeldThenAnsweredAndClosedOnceDespiteTwoEnds() throws Exception {
        FakeComet poll = post("/request", "{\"type\":\"poll\",\"events\":[\"p6\"],\"duration\":30000}");
        assertEquals(Integer.valueOf(30000), poll.timeout, "the connector times the poll out");
        assertEquals(1, inst.requests().pollCount());
        assertEquals(0, poll.closes.get());
        setEvent("p6");
        waitFor(() -> inst.requests().openCount() == 0); // answered: the core has let it go
        JsonObject record = JsonParser.parseString(poll.text()).getAsJsonObject();
        assertEquals("p6", record.getAsJsonObject("response").getAsJsonObject("event").get("name").getAsString());
        assertEquals(String.valueOf(poll.text().length()), poll.headers.get("Content-Length"));
        fire(poll, EventType.END, null); // the client hung up after reading its answer
        fire(poll, EventType.END, null);
        assertEquals(1, poll.closes.get());
        assertEquals(0, inst.requests().openCount());
    }

    @Test
    void cometStreamsUntilTheClientDisconnects() throws Exception {
        FakeComet comet = post("/request", "{\"type\":\"comet\",\"events\":[\"c6\"]}", "{\"type\":\"comet\",",
                "\"events\":[\"c6\"]}");
        assertEquals("application/x-ndjson", comet.headers.get("Content-Type"));
        assertTrue(comet.flushes.get() >= 1);
        assertEquals(Integer.valueOf(Integer.MAX_VALUE), comet.timeout, "a stream has no connector timeout");
        fire(comet, EventType.ERROR, EventSubType.TIMEOUT); // ignored: a stream has no timeout
        assertEquals(1, inst.requests().cometCount());
        assertEquals(0, comet.closes.get());
        setEvent("c6");
        waitFor(() -> comet.text().split("\n").length >= 3);
        fire(comet, EventType.ERROR, EventSubType.CLIENT_DISCONNECT);
        assertEquals(1, comet.closes.get());
        assertEquals(0, inst.requests().openCount());
        int length = comet.text().length();
        Thread.sleep(100);
        assertEquals(length, comet.text().length(), "written after the client disconnected");
    }

    @Test
    void anSseStreamIsHeldInBeginAndWritesOneEventPerRecordUntilClear() throws Exception {
        FakeComet sse = new FakeComet("GET", "/request", null, -1);
        sse.parameters.put("type", new String[] {"sse"});
        sse.parameters.put("events", new String[] {"e6"});
        fire(sse, EventType.BEGIN, null);
        assertEquals("text/event-stream", sse.headers.get("Content-Type"));
        assertEquals("no-cache", sse.headers.get("Cache-Control"));
        assertEquals("close", sse.headers.get("Connection"), "a stream ends its connection, as comet's does");
        assertEquals(Integer.valueOf(Integer.MAX_VALUE), sse.timeout, "a stream has no connector timeout");
        assertEquals(0, sse.closes.get());
        assertEquals(1, inst.requests().count(PushSpec.Type.SSE));
        setEvent("e6");
        waitFor(() -> sse.text().split("\n\n").length >= 2);
        String[] first = sse.text().split("\n\n")[0].split("\n");
        assertEquals("id: e6:1", first[0]);
        assertEquals(1, JsonParser.parseString(first[1].substring("data: ".length())).getAsJsonObject()
                .getAsJsonObject("response").getAsJsonObject("event").get("cycle").getAsLong());
        inst.answer(Endpoint.EVENT_CLEAR, null, new byte[0]);
        waitFor(() -> sse.closes.get() == 1);
        assertTrue(sse.text().contains("\"clear\":{\"reason\":\"clear\"}"));
        assertTrue(sse.text().endsWith("\n\n"));
        assertEquals(0, inst.requests().openCount());
    }

    @Test
    void aWebSocketUpgradeIsRefused400AndClosedInBegin() throws Exception {
        FakeComet upgrade = new FakeComet("GET", "/request", null, -1);
        upgrade.requestHeaders.put("Upgrade", "websocket");
        upgrade.requestHeaders.put("Connection", "Upgrade");
        upgrade.requestHeaders.put("Sec-WebSocket-Version", "13");
        fire(upgrade, EventType.BEGIN, null);
        assertEquals(400, upgrade.status);
        assertEquals("close", upgrade.headers.get("Connection"));
        assertTrue(upgrade.text().contains("does not speak WebSocket"), upgrade.text());
        assertEquals(1, upgrade.closes.get());
        FakeComet put = new FakeComet("PUT", "/request", null, -1);
        fire(put, EventType.BEGIN, null);
        assertEquals(405, put.status);
        assertEquals("POST, GET", put.headers.get("Allow"));
    }

    @Test
    void aHeldClientClosingItsEndIsRemoved() throws Exception {
        FakeComet poll = post("/request", "{\"type\":\"poll\",\"events\":[\"x\"],\"duration\":30000}");
        clientCloses(poll); // the poller sees the close: a READ whose read gives -1
        assertEquals(0, inst.requests().openCount());
        assertEquals(1, poll.closes.get());
        assertEquals("", poll.text());
    }

    private void clientCloses(FakeComet held) throws Exception {
        held.arrive("");
        fire(held, EventType.READ, null);
    }

    @Test
    void serverShutdownEndGivesAShutdownRecord() throws Exception {
        FakeComet comet = post("/request", "{\"type\":\"comet\",\"events\":[]}");
        fire(comet, EventType.END, EventSubType.SERVER_SHUTDOWN);
        assertTrue(comet.text().contains("{\"clear\":{\"reason\":\"shutdown\"}}"), comet.text());
        assertEquals(1, comet.closes.get());
        assertEquals(0, inst.requests().openCount());
    }

    @Test
    void badRequestBodyIsRefused() throws Exception {
        FakeComet bad = post("/request", "{\"type\":\"poll\",\"events\":[],\"duration\":0}");
        assertEquals(400, bad.status);
        assertTrue(bad.text().contains("error"));
        assertEquals(1, bad.closes.get());
        assertEquals(0, inst.requests().openCount());
    }

    /** From here on the servlet serves with a body deadline of this many ms. */
    private void bodyDeadline(long millis) {
        servlet.destroy();
        inst = new Instrumentation(Clock.SYSTEM, 16, new Bodies(millis, 60_000, 1));
        servlet = new CometPushServlet();
        servlet.init(inst);
    }

    /** A POST /event/set whose 40-byte body is on its way: BEGIN has been handled. */
    private FakeComet bodyOnItsWay() throws Exception {
        FakeComet comet = new FakeComet("POST", "/event/set", null, 40);
        fire(comet, EventType.BEGIN, null);
        return comet;
    }

    /** A few more bytes of that body arrive, in a READ. */
    private void aFewBytes(FakeComet comet) throws Exception {
        comet.arrive("{\"name\":");
        fire(comet, EventType.READ, null);
    }

    private static void assertRefused(FakeComet comet, int status) {
        assertEquals(status, comet.status);
        assertTrue(comet.text().contains("\"status\":" + status), comet.text());
        assertEquals(1, comet.closes.get());
    }

    @Test
    void aBodyThatStallsIs408OnTheTimeoutSetToItsDeadline() throws Exception {
        bodyDeadline(300);
        FakeComet comet = bodyOnItsWay();
        assertTrue(comet.timeout != null && comet.timeout <= 300, "comet timeout " + comet.timeout);
        Thread.sleep(30);
        aFewBytes(comet);
        assertTrue(comet.timeout < 300, "set again to what is left: " + comet.timeout);
        fire(comet, EventType.ERROR, EventSubType.TIMEOUT);
        assertRefused(comet, 408);
        assertEquals(1, inst.bodies().status().get("late").getAsLong());
    }

    @Test
    void aBodyTricklingPastItsDeadlineIs408OnItsNextRead() throws Exception {
        bodyDeadline(100);
        FakeComet comet = bodyOnItsWay();
        Thread.sleep(150);
        aFewBytes(comet);
        assertRefused(comet, 408);
    }

    @Test
    void aBodyWhoseTimeoutNeverComesIs408FromTheCoreTimerAndClosedByTheClientsNextEvent() throws Exception {
        bodyDeadline(100);
        FakeComet comet = bodyOnItsWay();
        aFewBytes(comet); // incomplete: the timer now answers at 100 ms plus the grace
        waitFor(() -> comet.status == 408);
        assertTrue(comet.text().contains("\"status\":408"), comet.text());
        assertEquals("close", comet.headers.get("Connection"));
        assertEquals(0, comet.closes.get(), "not closed from the timer's thread");
        aFewBytes(comet); // the slow client sends on
        assertEquals(1, comet.closes.get(), "closed on the container thread of its next event");
        assertEquals(1, inst.bodies().status().get("late").getAsLong());
    }

    @Test
    void aBodyTheConnectorFailsToReadIs400() throws Exception {
        FakeComet comet = bodyOnItsWay();
        aFewBytes(comet);
        fire(comet, EventType.ERROR, EventSubType.CLIENT_DISCONNECT); // Tomcat's word for a chunk it cannot decode
        assertRefused(comet, 400);
        fire(comet, EventType.END, null);
        assertEquals(1, comet.closes.get());
    }

    /** A chunked POST (no Content-Length) whose BEGIN has been handled. */
    private FakeComet chunked(String uri) throws Exception {
        FakeComet comet = new FakeComet("POST", uri, null, -1);
        comet.requestHeaders.put("Transfer-Encoding", "chunked");
        fire(comet, EventType.BEGIN, null);
        return comet;
    }

    @Test
    void aChunkedBodyEndsAtTheEndEventTomcatFiresForItsLastChunk() throws Exception {
        // An empty chunked body: Tomcat's END comes right after BEGIN; refused as an empty body with a length is.
        for (String uri : new String[] {"/event/set", "/event/remove", "/logging", "/request"}) {
            FakeComet empty = chunked(uri);
            assertEquals(0, empty.closes.get(), uri + ": BEGIN waits for the body");
            fire(empty, EventType.END, null);
            assertRefused(empty, 400);
        }
        FakeComet clear = chunked("/event/clear");
        fire(clear, EventType.END, null);
        assertEquals(200, clear.status);
        assertTrue(clear.text().contains("\"clear\""), clear.text());
        // A body whose last chunk comes after its data: the READ waits, the END answers it.
        FakeComet set = chunked("/event/set");
        set.arrive("{\"name\":\"chunked6\",\"frequency\":3600000}");
        fire(set, EventType.READ, null);
        assertEquals(0, set.closes.get(), "answered before the body's end");
        fire(set, EventType.END, null);
        assertEquals(200, set.status);
        assertTrue(set.text().contains("\"created\""), set.text());
        assertEquals(1, set.closes.get());
        fire(set, EventType.END, null); // the container's own END after the close changes nothing
        assertEquals(1, set.closes.get());
    }

    @Test
    void aCloseFromAnotherThreadDuringAnEventWaitsForTheEventToEnd() throws Exception {
        FakeComet connection = new FakeComet("POST", "/request", null, 10);
        Exchange exchange = new Exchange(connection.event, inst.log());
        exchange.enterEvent(); // a container thread is inside event() for this connection
        Thread other = new Thread(exchange::complete); // e.g. a timer answering the poll
        other.start();
        other.join();
        assertEquals(0, connection.closes.get(), "closed under Tomcat's feet during its event");
        exchange.leaveEvent();
        assertEquals(1, connection.closes.get());
        exchange.complete();
        exchange.close();
        assertEquals(1, connection.closes.get());
    }

    @Test
    void aCloseOnTheEventThreadItselfIsImmediate() throws Exception {
        FakeComet connection = new FakeComet("GET", "/status", null, -1);
        Exchange exchange = new Exchange(connection.event, inst.log());
        exchange.enterEvent();
        exchange.close();
        assertEquals(1, connection.closes.get());
        exchange.leaveEvent();
        assertEquals(1, connection.closes.get());
    }

    // The three tests below pin down the fix for answers written onto the wrong connection: Tomcat 6
    // recycles a connection's Request/Response/processor for the next connection right after it has ended
    // the request, so no close may still be running on another thread when the container's END arrives.

    @Test
    void theNextEventWaitsWhileAnotherThreadIsInsideClose() throws Exception {
        FakeComet connection = new FakeComet("POST", "/request", null, 10);
        Exchange exchange = new Exchange(connection.event, inst.log());
        CountDownLatch insideClose = new CountDownLatch(1);
        CountDownLatch finishClose = new CountDownLatch(1);
        connection.onClose = () -> { // a timer's close, slow in finishResponse()
            insideClose.countDown();
            await(finishClose);
        };
        Thread timer = new Thread(exchange::complete);
        timer.start();
        assertTrue(insideClose.await(10, TimeUnit.SECONDS));
        AtomicBoolean entered = new AtomicBoolean();
        Thread container = new Thread(() -> { // the client got its answer and hung up: END
            exchange.enterEvent();
            entered.set(true);
            exchange.leaveEvent();
        });
        container.start();
        container.join(300);
        assertFalse(entered.get(), "the container's END ran while close() was still inside Tomcat");
        finishClose.countDown();
        container.join(10000);
        timer.join(10000);
        assertTrue(entered.get());
        assertEquals(1, connection.closes.get());
    }

    @Test
    void aContainerThreadBusyWithAnotherConnectionClosesLikeAnyOtherThread() throws Exception {
        FakeComet held = new FakeComet("POST", "/request", null, 10);
        Exchange heldExchange = new Exchange(held.event, inst.log());
        FakeComet clear = new FakeComet("POST", "/event/clear", null, 2);
        Exchange clearExchange = new Exchange(clear.event, inst.log());
        CountDownLatch heldInEvent = new CountDownLatch(1);
        CountDownLatch heldLeaves = new CountDownLatch(1);
        Thread heldThread = new Thread(() -> { // the held connection's own event, still running
            heldExchange.enterEvent();
            heldInEvent.countDown();
            await(heldLeaves);
            heldExchange.leaveEvent();
        });
        heldThread.start();
        assertTrue(heldInEvent.await(10, TimeUnit.SECONDS));
        clearExchange.enterEvent(); // this thread: inside the event of POST /event/clear...
        heldExchange.complete(); // ...which completes every held request
        assertEquals(0, held.closes.get(), "closed under the held connection's own event");
        clearExchange.leaveEvent();
        heldLeaves.countDown();
        heldThread.join(10000);
        assertEquals(1, held.closes.get(), "the held connection's event thread closes it as it leaves");
    }

    @Test
    void anAnsweredPollIsFlushedAndClosedByTheContainerWhenItsClientHangsUp() throws Exception {
        FakeComet poll = post("/request", "{\"type\":\"poll\",\"events\":[\"pf\"],\"duration\":30000}");
        setEvent("pf");
        waitFor(() -> inst.requests().openCount() == 0); // answered: the core has let it go
        assertTrue(poll.text().contains("\"pf\""), poll.text());
        assertEquals("close", poll.headers.get("Connection"), "answered from the emitter's thread");
        assertTrue(poll.flushes.get() >= 1, "the answer must reach the client without a close");
        Thread.sleep(100);
        assertEquals(0, poll.closes.get(), "closed from the emitter's thread, racing the client's hang-up");
        AtomicBoolean closedOnContainerThread = new AtomicBoolean();
        Thread container = Thread.currentThread();
        poll.onClose = () -> closedOnContainerThread.set(Thread.currentThread() == container);
        clientCloses(poll); // the client read its answer and hung up: a READ whose read gives -1
        assertEquals(1, poll.closes.get());
        assertTrue(closedOnContainerThread.get());
        fire(poll, EventType.END, null);
        assertEquals(1, poll.closes.get());
    }

    @Test
    void aPollTimedOutByTheConnectorIsAnsweredAndClosedInThatEventKeepingTheConnection() throws Exception {
        FakeComet poll = post("/request", "{\"type\":\"poll\",\"events\":[\"pt\"],\"duration\":200}");
        assertEquals(Integer.valueOf(200), poll.timeout);
        AtomicBoolean closedOnContainerThread = new AtomicBoolean();
        Thread container = Thread.currentThread();
        poll.onClose = () -> closedOnContainerThread.set(Thread.currentThread() == container);
        fire(poll, EventType.ERROR, EventSubType.TIMEOUT); // at once: the connector counted from earlier
        JsonObject record = JsonParser.parseString(poll.text()).getAsJsonObject();
        assertEquals(200, record.getAsJsonObject("response").getAsJsonObject("timeout").get("duration").getAsLong());
        long held = record.getAsJsonObject("timings").get("duration").getAsLong();
        assertTrue(held >= 200, "an early TIMEOUT waits for the rest of the duration, held " + held + " ms");
        assertEquals(1, poll.closes.get());
        assertTrue(closedOnContainerThread.get(), "closed inside the TIMEOUT event");
        assertEquals(null, poll.headers.get("Connection"), "the connection stays open for the next poll");
        assertEquals(0, inst.requests().openCount());
        fire(poll, EventType.END, null);
        assertEquals(1, poll.closes.get());
    }

    @Test
    void aPollWhoseConnectorTimeoutNeverComesIsAnsweredByTheCoreTimerWithConnectionClose() throws Exception {
        long started = System.nanoTime();
        FakeComet poll = post("/request", "{\"type\":\"poll\",\"events\":[\"pn\"],\"duration\":50}");
        waitFor(() -> inst.requests().openCount() == 0);
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(waitedMs >= 50 + Exchange.CONTAINER_TIMEOUT_GRACE_MILLIS, "fallback after " + waitedMs + " ms");
        assertTrue(poll.text().contains("timeout"), poll.text());
        assertEquals("close", poll.headers.get("Connection"), "answered from the timer's thread");
        assertEquals(0, poll.closes.get(), "the client hangs up first (see Exchange.complete)");
        clientCloses(poll);
        assertEquals(1, poll.closes.get());
    }

    @Test
    void aTimeoutAfterThePollWasAnsweredEndsTheConnection() throws Exception {
        FakeComet poll = post("/request", "{\"type\":\"poll\",\"events\":[\"pa\"],\"duration\":30000}");
        setEvent("pa");
        waitFor(() -> inst.requests().openCount() == 0); // answered from the emitter's thread
        fire(poll, EventType.ERROR, EventSubType.TIMEOUT);
        assertEquals(1, poll.closes.get());
        assertEquals(1, poll.text().split("\n").length, "one answer only: " + poll.text());
    }

    @Test
    void aTimeoutWhileTheCoreTimerIsWritingThePollsRecordLetsTheRecordOut() throws Exception {
        // The core's timer has taken the poll (done) and is about to write its record, under the request's
        // monitor, when the connector's late TIMEOUT comes: the record must still reach the client.
        CountDownLatch inExpire = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean();
        Clock clock = () -> {
            if (armed.get() && Thread.currentThread().getName().startsWith("pushbench-timer") && insideExpire()
                    && armed.compareAndSet(true, false)) {
                inExpire.countDown();
                await(release);
            }
            return System.currentTimeMillis();
        };
        servlet.destroy();
        inst = new Instrumentation(clock);
        servlet = new CometPushServlet();
        servlet.init(inst);
        armed.set(true);
        FakeComet poll = post("/request", "{\"type\":\"poll\",\"events\":[\"pr\"],\"duration\":1}");
        assertTrue(inExpire.await(10, TimeUnit.SECONDS), "the core's timer never expired the poll");
        Thread container = new Thread(() -> call(() -> {
            fire(poll, EventType.ERROR, EventSubType.TIMEOUT);
            return null;
        }));
        container.start();
        waitFor(() -> container.getState() == Thread.State.BLOCKED); // on the request's monitor
        release.countDown();
        container.join(10000);
        assertTrue(poll.text().contains("timeout"), "the record was lost: '" + poll.text() + "'");
        assertEquals("close", poll.headers.get("Connection"), "answered from the timer's thread");
        assertEquals(1, poll.closes.get());
    }

    /** Whether this thread is inside PushRequest.expire (the clock read after it took the poll). */
    private static boolean insideExpire() {
        for (StackTraceElement frame : Thread.currentThread().getStackTrace()) {
            if (frame.getClassName().equals("pushbench.core.PushRequest") && frame.getMethodName().equals("expire")) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aCloseFromAnotherThreadWaitsUntilTheContainerThreadIsDoneWithItsDispatch() throws Exception {
        FakeComet connection = new FakeComet("POST", "/request", null, 10);
        Exchange exchange = new Exchange(connection.event, inst.log());
        LingeringDispatch dispatch = new LingeringDispatch(() -> {
            exchange.enterEvent(); // the READ that makes the request held
            exchange.leaveEvent();
            return null;
        });
        assertClosedOnlyAfter(dispatch, connection, () -> {
            exchange.complete(); // on the core's timer: a 1 ms poll times out at once
            return null;
        }, "closed while the container thread was still ending its dispatch");
        dispatch.end();
    }

    @Test
    void aTimeoutOnASecondContainerThreadWaitsUntilTheReadsThreadIsDoneWithItsDispatch() throws Exception {
        AtomicReference<FakeComet> held = new AtomicReference<>();
        LingeringDispatch dispatch = new LingeringDispatch(() -> {
            // BEGIN and the READ that makes a 1 ms poll held
            held.set(post("/request", "{\"type\":\"poll\",\"events\":[\"p2\"],\"duration\":1}"));
            return null;
        });
        FakeComet poll = held.get();
        Thread.sleep(2); // the 1 ms poll is due: the connector's scan dispatches its TIMEOUT elsewhere
        assertClosedOnlyAfter(dispatch, poll, () -> {
            fire(poll, EventType.ERROR, EventSubType.TIMEOUT); // on a second container thread
            return null;
        }, "closed while the READ's thread was still ending its dispatch");
        assertTrue(poll.text().contains("timeout"), poll.text());
        assertEquals(null, poll.headers.get("Connection"), "answered inside the TIMEOUT event");
        dispatch.end();
    }

    /**
     * A container thread that runs the given events, then stays in Tomcat's own code after event()
     * (RUNNABLE) until {@link #leaveTomcat}, then waits for work in its pool until {@link #end}.
     */
    private static final class LingeringDispatch {
        private final AtomicBoolean stillInTomcat = new AtomicBoolean(true);
        private final CountDownLatch backInPool = new CountDownLatch(1);
        private final Thread thread;

        LingeringDispatch(Callable<?> events) throws InterruptedException {
            CountDownLatch leftEvent = new CountDownLatch(1);
            thread = new Thread(() -> {
                call(events);
                leftEvent.countDown();
                while (stillInTomcat.get()) {
                    Thread.yield(); // stays RUNNABLE
                }
                await(backInPool);
            });
            thread.start();
            assertTrue(leftEvent.await(10, TimeUnit.SECONDS));
        }

        void leaveTomcat() {
            stillInTomcat.set(false);
        }

        void end() throws InterruptedException {
            backInPool.countDown();
            thread.join(10000);
        }
    }

    /** Runs the close on a thread of its own: no close while the dispatch lingers, one close after it. */
    private static void assertClosedOnlyAfter(LingeringDispatch dispatch, FakeComet connection,
            Callable<?> close, String closedEarly) throws InterruptedException {
        Thread closer = new Thread(() -> call(close));
        closer.start();
        closer.join(300);
        assertEquals(0, connection.closes.get(), closedEarly);
        dispatch.leaveTomcat();
        closer.join(10000);
        assertEquals(1, connection.closes.get());
    }

    private static void call(Callable<?> task) {
        try {
            task.call();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
