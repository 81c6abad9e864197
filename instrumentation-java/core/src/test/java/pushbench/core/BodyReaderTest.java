package pushbench.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The body rules on fake sockets: what waits, for how long, and what each refusal answers and counts. */
class BodyReaderTest {
    private static final byte[] BODY = "{\"type\":\"poll\"}".getBytes(StandardCharsets.UTF_8);

    /** A socket whose bytes come one every gapMillis; a read waits at most the wait last set, like SO_TIMEOUT. */
    private static final class SlowSocket extends InputStream implements ReadWait {
        final List<Integer> waits = new ArrayList<>();
        private final byte[] bytes;
        private final long gapMillis;
        private int sent;
        private int wait;

        SlowSocket(byte[] bytes, long gapMillis, int connectorWait) {
            this.bytes = bytes;
            this.gapMillis = gapMillis;
            this.wait = connectorWait;
        }

        @Override
        public int read() throws IOException {
            if (sent == bytes.length) {
                return -1;
            }
            if (wait > 0 && wait < gapMillis) {
                sleep(wait);
                throw new SocketTimeoutException("Read timed out");
            }
            sleep(gapMillis);
            return bytes[sent++] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int c = read();
            if (c < 0) {
                return -1;
            }
            b[off] = (byte) c;
            return 1;
        }

        @Override
        public int current() {
            return wait;
        }

        @Override
        public void set(int millis) {
            waits.add(millis);
            wait = millis;
        }

        private static void sleep(long millis) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static byte[] read(InputStream in, int length, Bodies bodies, ReadWait wait) throws Exception {
        return new BodyReader(in, length, System.nanoTime(), bodies, wait).read();
    }

    @Test
    void aBodyThatArrivedWithItsHeadTakesNoWaitingPlace() throws Exception {
        Bodies none = new Bodies(10_000, 0, 0);
        assertArrayEquals(BODY, read(new ByteArrayInputStream(BODY), BODY.length, none, ReadWait.NONE));
        assertEquals(0, none.status().get("refused").getAsLong());
    }

    @Test
    void aBodyStillComingWithEveryPlaceTakenIs503AndCounted() {
        Bodies none = new Bodies(10_000, 0, 0);
        SlowSocket socket = new SlowSocket(BODY, 5, 0);
        BadInput refused = assertThrows(BadInput.class, () -> read(socket, BODY.length, none, socket));
        assertEquals(503, refused.status());
        assertEquals(1, none.status().get("refused").getAsLong());
        BadInput chunked = assertThrows(BadInput.class, () -> read(new ByteArrayInputStream(BODY), -1, none, socket));
        assertEquals(503, chunked.status(), "a chunked body's end is never known without waiting");
    }

    @Test
    void aTricklingBodyIs408AtTheDeadlineAndEachWaitIsWhatIsLeftOfIt() {
        Bodies bodies = new Bodies(300, 0, 1);
        SlowSocket socket = new SlowSocket(new byte[200], 40, 60_000);
        long started = System.nanoTime();
        BadInput late = assertThrows(BadInput.class, () -> read(socket, 200, bodies, socket));
        long waited = (System.nanoTime() - started) / 1_000_000;
        assertEquals(408, late.status());
        assertTrue(waited >= 300 && waited < 600, "answered after " + waited + " ms");
        assertEquals(1, bodies.status().get("late").getAsLong());
        assertTrue(socket.waits.get(0) <= 300 && socket.waits.get(1) < socket.waits.get(0), "waits " + socket.waits);
        assertEquals(60_000, socket.waits.get(socket.waits.size() - 1).intValue(), "the connector's wait is restored");
        assertTrue(enterAndLeave(bodies), "the waiting place is given back");
    }

    @Test
    void theConnectorsShorterWaitStillEndsAStalledBody() {
        Bodies bodies = new Bodies(10_000, 0, 1);
        SlowSocket socket = new SlowSocket(BODY, 5_000, 100);
        BadInput late = assertThrows(BadInput.class, () -> read(socket, BODY.length, bodies, socket));
        assertEquals(408, late.status());
        assertEquals(100, socket.waits.get(0).intValue(), "the deadline never lengthens the connector's wait");
    }

    @Test
    void aBodyArrivingInTimeIsReadWhole() throws Exception {
        Bodies bodies = new Bodies(5_000, 0, 1);
        SlowSocket socket = new SlowSocket(BODY, 1, 0);
        assertArrayEquals(BODY, read(socket, BODY.length, bodies, socket));
        assertArrayEquals(BODY, read(new SlowSocket(BODY, 1, 0), -1, bodies, ReadWait.NONE), "chunked: to its end");
    }

    @Test
    void aBodyTheContainerCannotDecodeIs400AndOneTooLargeIs413() {
        Bodies bodies = new Bodies(5_000, 0, 1);
        InputStream broken = new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("Invalid chunk header");
            }
        };
        assertEquals(400, assertThrows(BadInput.class, () -> read(broken, -1, bodies, ReadWait.NONE)).status());
        assertEquals(413, assertThrows(BadInput.class,
                () -> read(new ByteArrayInputStream(new byte[0]), BodyBuffer.LIMIT + 1, bodies, ReadWait.NONE)).status());
        assertEquals(413, assertThrows(BadInput.class,
                () -> read(new ByteArrayInputStream(new byte[BodyBuffer.LIMIT + 1]), -1, bodies, ReadWait.NONE)).status());
    }

    @Test
    void settingsFromTheirTextAndTheWaitRule() {
        assertEquals(2_000, Bodies.wholeNumber("2000", 10_000));
        assertEquals(10_000, Bodies.wholeNumber("-5", 10_000));
        assertEquals(10_000, Bodies.wholeNumber(null, 10_000));
        assertEquals(300, Bodies.waitMillis(300, 60_000));
        assertEquals(100, Bodies.waitMillis(300, 100));
        assertEquals(300, Bodies.waitMillis(300, 0), "no connector wait: what is left");
        assertEquals(1, Bodies.waitMillis(0, 0), "never 0, which a socket takes as for ever");
    }

    private static boolean enterAndLeave(Bodies bodies) {
        if (!bodies.enterWait()) {
            return false;
        }
        bodies.leaveWait();
        return true;
    }
}
