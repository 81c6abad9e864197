package pushbench.tomcat7;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.concurrent.TimeUnit;
import javax.servlet.AsyncEvent;
import javax.servlet.AsyncListener;
import javax.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import pushbench.core.Bodies;
import pushbench.core.Clock;
import pushbench.core.Endpoint;
import pushbench.core.Instrumentation;
import pushbench.core.PushSpec;

/** The Tomcat 7 handler against fake container objects; the real container is the conformance suite's job. */
class AsyncPushServletTest {
    private Instrumentation inst;
    private AsyncPushServlet servlet;

    @BeforeEach
    void setUp() {
        inst = new Instrumentation();
        servlet = new AsyncPushServlet();
        servlet.init(inst);
    }

    @AfterEach
    void tearDown() {
        servlet.destroy();
    }

    private FakeHttp call(FakeHttp http) throws Exception {
        HttpServletResponse response = http.response();
        servlet.service(http.request(response), response);
        return http;
    }

    private void emit(String name) {
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
    void plainEndpointsAnswerSynchronously() throws Exception {
        FakeHttp timestamp = call(new FakeHttp("GET", "/timestamp", "42", null));
        assertEquals(200, timestamp.status);
        assertEquals("application/json", timestamp.headers.get("Content-Type"));
        JsonObject json = JsonParser.parseString(timestamp.text()).getAsJsonObject();
        assertEquals(42, json.getAsJsonObject("timestamp").get("client").getAsLong());
        assertEquals(String.valueOf(timestamp.text().length()), timestamp.headers.get("Content-Length"));
        assertFalse(timestamp.asyncStarted);

        FakeHttp wrong = call(new FakeHttp("GET", "/event/set", null, null));
        assertEquals(405, wrong.status);
        assertEquals("POST", wrong.headers.get("Allow"));
        assertEquals(404, call(new FakeHttp("GET", "/elsewhere", null, null)).status);
        assertEquals(400, call(new FakeHttp("POST", "/request", null, "{\"type\":\"push\"}")).status);
        FakeHttp huge = call(new FakeHttp("POST", "/request", null, "{}", 20_000));
        assertEquals(413, huge.status);
        assertTrue(huge.text().contains("error"));
    }

    @Test
    void aBodyStillArrivingWhenNoPlaceToWaitIsFreeIs503AndClosesTheConnection() throws Exception {
        servlet.destroy();
        inst = new Instrumentation(Clock.SYSTEM, 16, new Bodies(10_000, 0, 0));
        servlet = new AsyncPushServlet();
        servlet.init(inst);
        FakeHttp sent = call(new FakeHttp("POST", "/event/set", null, "{\"name\":\"here\",\"frequency\":1000}"));
        assertEquals(200, sent.status, "a body that came with its head never waits");
        FakeHttp coming = new FakeHttp("POST", "/event/set", null, "{\"name\":\"coming\",\"frequency\":1000}");
        coming.arrived = false;
        call(coming);
        assertEquals(503, coming.status);
        assertEquals("close", coming.headers.get("Connection"));
        assertTrue(coming.text().contains("\"status\":503"));
        assertEquals(1, inst.bodies().status().get("refused").getAsLong());
        assertEquals(400, call(new FakeHttp("GET", "/../timestamp", null, null)).status);
    }

    @Test
    void pollIsHeldAsyncAndCompletedOnceByItsEvent() throws Exception {
        FakeHttp poll = call(new FakeHttp("POST", "/request", null,
                "{\"type\":\"poll\",\"events\":[\"t7\"],\"duration\":30000}"));
        assertTrue(poll.asyncStarted);
        assertEquals(30_000 + AsyncPushServlet.CONTAINER_TIMEOUT_MARGIN_MS, poll.asyncTimeout);
        assertEquals(1, inst.requests().pollCount());
        emit("t7");
        waitFor(() -> poll.completes.get() == 1);
        JsonObject record = JsonParser.parseString(poll.text()).getAsJsonObject();
        assertEquals("t7", record.getAsJsonObject("response").getAsJsonObject("event").get("name").getAsString());
        assertEquals(String.valueOf(poll.text().length()), poll.headers.get("Content-Length"));
        // The container then reports completion, and a late safety-net timeout: neither completes again.
        AsyncListener monitor = poll.listeners.get(0);
        monitor.onComplete(new AsyncEvent(null));
        monitor.onTimeout(new AsyncEvent(null));
        Thread.sleep(50);
        assertEquals(1, poll.completes.get());
        assertEquals(0, inst.requests().openCount());
    }

    @Test
    void cometStreamsLinesUntilTheClientErrors() throws Exception {
        FakeHttp comet = call(new FakeHttp("POST", "/request", null, "{\"type\":\"comet\",\"events\":[\"s7\"]}"));
        assertTrue(comet.asyncStarted);
        assertEquals(0, comet.asyncTimeout, "a comet stream has no container timeout");
        assertEquals("application/x-ndjson", comet.headers.get("Content-Type"));
        assertTrue(comet.flushes.get() >= 1, "headers go out before any event");
        emit("s7");
        waitFor(() -> comet.text().split("\n").length >= 3);
        comet.listeners.get(0).onError(new AsyncEvent(null, new java.io.IOException("reset")));
        assertEquals(1, comet.completes.get());
        assertEquals(0, inst.requests().openCount());
        int lines = comet.text().split("\n").length;
        Thread.sleep(100); // several more cycles fire
        assertEquals(lines, comet.text().split("\n").length, "written after the container ended the request");
        for (String line : comet.text().split("\n")) {
            assertTrue(JsonParser.parseString(line).getAsJsonObject().getAsJsonObject("response").has("event"));
        }
    }

    /** GET /request?type=<type>&events=<events>. */
    private static FakeHttp subscription(String type, String events) {
        FakeHttp http = new FakeHttp("GET", "/request", null, null);
        http.parameters.put("type", new String[] {type});
        http.parameters.put("events", new String[] {events});
        return http;
    }

    @Test
    void anSseStreamIsHeldAsyncWithNoTimeoutAndItsEventsCarryTheStreamsCursor() throws Exception {
        FakeHttp sse = call(subscription("sse", "v7"));
        assertTrue(sse.asyncStarted);
        assertEquals(0, sse.asyncTimeout, "a stream has no container timeout");
        assertEquals("text/event-stream", sse.headers.get("Content-Type"));
        assertEquals("no-cache", sse.headers.get("Cache-Control"));
        assertEquals(1, inst.requests().count(PushSpec.Type.SSE));
        emit("v7");
        waitFor(() -> sse.text().split("\n\n").length >= 3);
        String[] events = sse.text().split("\n\n");
        for (int i = 0; i < 3; i++) {
            String[] fields = events[i].split("\n");
            assertEquals("id: v7:" + (i + 1), fields[0]);
            assertTrue(fields[1].startsWith("data: {\"response\":{\"event\":{\"name\":\"v7\",\"cycle\":" + (i + 1) + ","),
                    fields[1]);
        }
        sse.listeners.get(0).onError(new AsyncEvent(null, new java.io.IOException("reset")));
        assertEquals(1, sse.completes.get());
        assertEquals(0, inst.requests().openCount());
    }

    @Test
    void aBadSseQueryIs400AndAWrongMethodOnRequestNamesBothMethods() throws Exception {
        FakeHttp comet = call(subscription("comet", "x"));
        assertEquals(400, comet.status);
        assertTrue(comet.text().contains("POST /request"), comet.text());
        assertFalse(comet.asyncStarted);
        FakeHttp put = call(new FakeHttp("PUT", "/request", null, null));
        assertEquals(405, put.status);
        assertEquals("POST, GET", put.headers.get("Allow"));
    }

    @Test
    void clearEndsACometWithAClearRecordAndOneComplete() throws Exception {
        FakeHttp comet = call(new FakeHttp("POST", "/request", null, "{\"type\":\"comet\",\"events\":[]}"));
        FakeHttp clear = call(new FakeHttp("POST", "/event/clear", null, ""));
        assertEquals("{\"clear\":{\"events\":0,\"requests\":1}}", clear.text());
        assertEquals(1, comet.completes.get());
        assertTrue(comet.text().endsWith("\n"));
        assertTrue(comet.text().contains("\"reason\":\"clear\""));
        comet.listeners.get(0).onComplete(new AsyncEvent(null));
        assertEquals(1, comet.completes.get());
    }

    @Test
    void safetyNetTimeoutWritesTheTimeoutRecordOnce() throws Exception {
        FakeHttp poll = call(new FakeHttp("POST", "/request", null,
                "{\"type\":\"poll\",\"events\":[\"never\"],\"duration\":3600000}"));
        poll.listeners.get(0).onTimeout(new AsyncEvent(null));
        assertEquals(1, poll.completes.get());
        assertTrue(poll.text().contains("\"timeout\":{\"duration\":3600000}"));
        assertEquals(0, inst.requests().openCount());
    }
}
