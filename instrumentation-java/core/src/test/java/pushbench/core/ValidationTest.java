package pushbench.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ValidationTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void acceptsAPollAndEchoesWhatItParsed() throws BadInput {
        PushSpec spec = Validation.pushRequest(b("{\"type\":\"poll\",\"events\":[\"event1\",\"e-2_x\"],"
                + "\"duration\":3000,\"extra\":true}"));
        assertFalse(spec.isComet());
        assertEquals(Arrays.asList("event1", "e-2_x"), spec.events());
        assertEquals(3000L, spec.duration().longValue());
        assertEquals("{\"type\":\"poll\",\"events\":[\"event1\",\"e-2_x\"],\"duration\":3000}", Json.write(spec.echo()));
    }

    @Test
    void cometDurationIsOptionalAndAnInvalidOneIsIgnored() throws BadInput {
        assertNull(Validation.pushRequest(b("{\"type\":\"comet\",\"events\":[]}")).duration());
        assertNull(Validation.pushRequest(b("{\"type\":\"comet\",\"events\":[],\"duration\":-5}")).duration());
        assertEquals(10L, Validation.pushRequest(b("{\"type\":\"comet\",\"events\":[],\"duration\":10}")).duration());
    }

    @Test
    void integralNumbersInAnyNotationAreIntegers() throws BadInput {
        assertEquals(3000L, Validation.pushRequest(b("{\"type\":\"poll\",\"events\":[],\"duration\":3000.0}")).duration());
        assertEquals(3000L, Validation.pushRequest(b("{\"type\":\"poll\",\"events\":[],\"duration\":3e3}")).duration());
    }

    @Test
    void duplicateNamesAreSubscribedOnce() throws BadInput {
        PushSpec spec = Validation.pushRequest(b("{\"type\":\"comet\",\"events\":[\"a\",\"b\",\"a\"]}"));
        assertEquals(Arrays.asList("a", "b", "a"), spec.events());
        assertEquals(Arrays.asList("a", "b"), spec.subscriptions());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", " ", "{", "{\"type\":\"poll\"", "nonsense", "{type:\"poll\"}", "{'type':'poll'}",
        "[]", "\"poll\"", "null", "42",
        "{\"type\":\"poll\",\"events\":[],\"duration\":100} {}",
        "{\"events\":[],\"duration\":100}",
        "{\"type\":\"push\",\"events\":[],\"duration\":100}",
        "{\"type\":\"POLL\",\"events\":[],\"duration\":100}",
        "{\"type\":1,\"events\":[],\"duration\":100}",
        "{\"type\":\"poll\",\"duration\":100}",
        "{\"type\":\"poll\",\"events\":\"event1\",\"duration\":100}",
        "{\"type\":\"poll\",\"events\":[1],\"duration\":100}",
        "{\"type\":\"poll\",\"events\":[\"\"],\"duration\":100}",
        "{\"type\":\"poll\",\"events\":[\"has space\"],\"duration\":100}",
        "{\"type\":\"poll\",\"events\":[\"a.b\"],\"duration\":100}",
        "{\"type\":\"poll\",\"events\":[\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"],\"duration\":100}",
        "{\"type\":\"poll\",\"events\":[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\",\"10\",\"11\",\"12\","
            + "\"13\",\"14\",\"15\",\"16\",\"17\"],\"duration\":100}",
        "{\"type\":\"poll\",\"events\":[]}",
        "{\"type\":\"poll\",\"events\":[],\"duration\":0}",
        "{\"type\":\"poll\",\"events\":[],\"duration\":-1}",
        "{\"type\":\"poll\",\"events\":[],\"duration\":3600001}",
        "{\"type\":\"poll\",\"events\":[],\"duration\":1e100}",
        "{\"type\":\"poll\",\"events\":[],\"duration\":10.5}",
        "{\"type\":\"poll\",\"events\":[],\"duration\":\"100\"}",
        "{\"type\":\"poll\",\"events\":[],\"duration\":true}",
        "{\"type\":\"poll\",\"events\":[],\"duration\":null}",
    })
    void rejectsBadRequestsWith400(String body) {
        BadInput bad = assertThrows(BadInput.class, () -> Validation.pushRequest(b(body)));
        assertEquals(400, bad.status());
        String answer = bad.toAnswer().body();
        assertTrue(answer.contains("error"), answer);
        assertTrue(answer.startsWith("{\"error\":{\"status\":400,\"message\":"), answer);
    }

    @Test
    void sixteenNamesOf64CharactersAreFine() throws BadInput {
        StringBuilder body = new StringBuilder("{\"type\":\"comet\",\"events\":[");
        for (int i = 0; i < 16; i++) {
            body.append(i == 0 ? "" : ",").append('"').append(String.format("%064d", i)).append('"');
        }
        body.append("]}");
        assertEquals(16, Validation.pushRequest(b(body.toString())).events().size());
    }

    @Test
    void eventSetRules() throws BadInput {
        assertEquals("event1", Validation.eventName(b("{\"name\":\"event1\",\"frequency\":2000}")));
        assertEquals(2000, Validation.frequency(b("{\"name\":\"event1\",\"frequency\":2000}")));
        assertEquals(10, Validation.frequency(b("{\"name\":\"x\",\"frequency\":10}")));
        assertEquals(3_600_000, Validation.frequency(b("{\"name\":\"x\",\"frequency\":3600000}")));
        for (String body : new String[] {"{\"name\":\"x\",\"frequency\":9}", "{\"name\":\"x\",\"frequency\":3600001}",
            "{\"name\":\"x\",\"frequency\":\"2000\"}", "{\"name\":\"x\"}", "{\"name\":\"x\",\"frequency\":20.5}"}) {
            assertEquals(400, assertThrows(BadInput.class, () -> Validation.frequency(b(body))).status(), body);
        }
        for (String body : new String[] {"{\"frequency\":2000}", "{\"name\":5}", "{\"name\":\"a/b\"}", "{\"name\":\"\"}"}) {
            assertEquals(400, assertThrows(BadInput.class, () -> Validation.eventName(b(body))).status(), body);
        }
    }

    @Test
    void loggingRules() throws BadInput {
        assertTrue(Validation.logging(b("{\"enabled\":true}")));
        assertFalse(Validation.logging(b("{\"enabled\":false}")));
        for (String body : new String[] {"{\"enabled\":\"true\"}", "{\"enabled\":1}", "{}", "true", ""}) {
            assertEquals(400, assertThrows(BadInput.class, () -> Validation.logging(b(body))).status(), body);
        }
    }

    @Test
    void clearTakesEmptyOrAnObject() throws BadInput {
        Validation.clear(b(""));
        Validation.clear(b("  \n"));
        Validation.clear(b("{}"));
        Validation.clear(b("{\"anything\":1}"));
        assertEquals(400, assertThrows(BadInput.class, () -> Validation.clear(b("[]"))).status());
        assertEquals(400, assertThrows(BadInput.class, () -> Validation.clear(b("{oops"))).status());
    }

    @Test
    void bodyBufferEnforces16KiB() {
        BodyBuffer buffer = new BodyBuffer();
        byte[] piece = new byte[4096];
        for (int i = 0; i < 4; i++) {
            assertTrue(buffer.append(piece, 0, piece.length));
        }
        assertEquals(16384, buffer.size());
        assertFalse(buffer.append(piece, 0, 1));
        assertTrue(buffer.tooLarge());
        assertEquals(413, BodyBuffer.tooLargeError().status());
    }

    @Test
    void readChunkFitsTheBody() {
        assertEquals(57, BodyBuffer.chunkFor(57).length);
        // Unknown (-1) or empty (0): never a zero-length chunk, which would read 0 bytes forever.
        assertEquals(4096, BodyBuffer.chunkFor(-1).length);
        assertEquals(4096, BodyBuffer.chunkFor(0).length);
        assertEquals(4096, BodyBuffer.chunkFor(16384).length);
    }

    @Test
    void routing() {
        assertEquals(Endpoint.REQUEST, Endpoint.route("POST", "/request").endpoint);
        assertEquals(Endpoint.TIMESTAMP, Endpoint.route("GET", "/timestamp").endpoint);
        Answer notFound = Endpoint.route("GET", "/nowhere").rejection;
        assertEquals(404, notFound.status());
        assertTrue(notFound.body().contains("error"));
        Answer wrongMethod = Endpoint.route("GET", "/event/set").rejection;
        assertEquals(405, wrongMethod.status());
        assertEquals("POST", wrongMethod.allow());
        assertEquals("GET", Endpoint.route("POST", "/status").rejection.allow());
        assertEquals(404, Endpoint.route("GET", "/timestamp/").rejection.status());
        assertEquals(Endpoint.STREAM, Endpoint.route("GET", "/request").endpoint, "GET /request is an SSE stream");
        assertEquals("POST, GET", Endpoint.route("PUT", "/request").rejection.allow());
        assertEquals(Endpoint.STREAM, Endpoint.route("HEAD", "/request").endpoint, "HEAD asks for a GET endpoint's head");
        assertEquals(Endpoint.STATUS, Endpoint.route("HEAD", "/status").endpoint);
        assertEquals(405, Endpoint.route("HEAD", "/event/set").rejection.status(), "no head of a POST endpoint");
    }

    @Test
    void anSseStreamsHeadIsItsStatusAndHeadersWithoutBodyOrLength() {
        Answer head = Answer.streamHead();
        assertEquals(200, head.status());
        assertEquals("text/event-stream", head.contentType());
        assertEquals("Cache-Control", head.headerName());
        assertEquals("no-cache", head.headerValue());
        assertFalse(head.hasBody());
        assertTrue(Answer.error(400, "x").hasBody());
        assertEquals("application/json", Answer.error(400, "x").withHeader("A", "b").contentType());
    }

    @Test
    void aPathWithADotSegmentIs400WhateverItWouldResolveTo() {
        for (String path : new String[] {"/../timestamp", "/./timestamp", "/%2e%2e/timestamp", "/%2E%2e/status",
            "/%2e/timestamp", "/a/../timestamp", "/timestamp/..", "/event/./set", "/."}) {
            Answer refused = Endpoint.route("GET", path).rejection;
            assertEquals(400, refused == null ? 200 : refused.status(), path);
            assertTrue(refused.body().contains("dot segment"), path);
        }
        for (String path : new String[] {"/.x", "/...", "/a.b", "/%2ex", "/timestamp%2e"}) {
            assertEquals(404, Endpoint.route("GET", path).rejection.status(), path + " is no dot segment");
        }
    }
}
