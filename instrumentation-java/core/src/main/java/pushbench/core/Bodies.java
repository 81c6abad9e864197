package pushbench.core;

import com.google.gson.JsonObject;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rules for receiving request bodies (docs/protocol.md, "Request bodies"), one instance per webapp:
 * <ul>
 * <li>a body must arrive whole within the body deadline after the request's head, else 408
 *     ({@code pb.bodyDeadlineMs}, from PB_BODY_DEADLINE_MS; default 10 s);</li>
 * <li>where waiting for body bytes blocks a container thread (every Tomcat connector but Tomcat 6's Comet
 *     one), at most a quarter of the connector's threads ({@code pb.maxThreads}) wait at once; a body that
 *     has not arrived with its head when all those places are taken is answered 503 at once, so clients
 *     that send slowly never hold more than that share of the threads.</li>
 * </ul>
 * Both refusals are counted for /status ({@code "bodies":{"late":n,"refused":n}}).
 */
public final class Bodies {
    public static final long DEFAULT_DEADLINE_MILLIS = 10_000;
    /** The threads assumed when pb.maxThreads is not set: Tomcat's own default maxThreads. */
    static final int DEFAULT_THREADS = 200;

    private final long deadlineMillis;
    private final int connectorWaitMillis;
    private final int places;
    private final Semaphore waiting;
    private final AtomicLong late = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    /**
     * @param connectorWaitMillis the connector's own read timeout (connectionTimeout), 0 if unknown: the
     *        deadline only ever shortens a wait, so a body that stalls longer than this is late too
     */
    public Bodies(long deadlineMillis, int connectorWaitMillis, int places) {
        this.deadlineMillis = deadlineMillis;
        this.connectorWaitMillis = connectorWaitMillis;
        this.places = places;
        this.waiting = new Semaphore(places);
    }

    /** From the system properties the Tomcat launch sets (servers/tomcat-common.sh), with the defaults. */
    static Bodies fromSystemProperties() {
        long deadline = wholeNumber(System.getProperty("pb.bodyDeadlineMs"), DEFAULT_DEADLINE_MILLIS);
        long connector = wholeNumber(System.getProperty("pb.connectionTimeout"), 0);
        long threads = wholeNumber(System.getProperty("pb.maxThreads"), DEFAULT_THREADS);
        return new Bodies(deadline, (int) connector, (int) Math.max(1, threads / 4));
    }

    /** A whole number from 1 to 999999999, else the default. */
    static long wholeNumber(String raw, long otherwise) {
        String text = raw == null ? "" : raw.trim();
        return text.matches("[1-9][0-9]{0,8}") ? Long.parseLong(text) : otherwise;
    }

    public long deadlineMillis() {
        return deadlineMillis;
    }

    /**
     * How long the next wait for body bytes may be: what is left of the deadline, at most the connector's
     * own wait ({@code connectorWait}, 0 or less if it has none).
     */
    public static int waitMillis(long leftMillis, int connectorWait) {
        long wait = connectorWait > 0 ? Math.min(connectorWait, leftMillis) : leftMillis;
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, wait));
    }

    /** For a container that keeps no read timeout of its own in reach (Tomcat 6's Comet events). */
    public int connectorWaitMillis() {
        return connectorWaitMillis;
    }

    /** Takes a place to wait for body bytes; false when all are taken (answer {@link #busy}). */
    boolean enterWait() {
        return waiting.tryAcquire();
    }

    void leaveWait() {
        waiting.release();
    }

    /** Counts and returns the 408 of a body not received whole within the deadline. */
    public BadInput late() {
        late.incrementAndGet();
        return new BadInput(408, "request body not received whole within " + deadlineMillis
                + " ms (PB_BODY_DEADLINE_MS) or stalled past the connection timeout");
    }

    /** Counts (as a late body) and returns the 408 of a WebSocket whose subscription did not come within the deadline. */
    public BadInput lateSubscription() {
        late.incrementAndGet();
        return new BadInput(408, "subscription not received within " + deadlineMillis + " ms (PB_BODY_DEADLINE_MS)");
    }

    /** Counts and returns the 503 of a body that would wait while every waiting place is taken. */
    BadInput busy() {
        refused.incrementAndGet();
        return new BadInput(503, "too many request bodies still arriving (" + places
                + " at once); send the body with the request head, or retry");
    }

    /** The malformed body's 400: the container could not decode it (chunked encoding). */
    public static BadInput malformed(String why) {
        return new BadInput(400, "request body cannot be read (malformed chunked encoding?): " + why);
    }

    /** /status's {@code "bodies"}: {"late":n,"refused":n}. */
    public JsonObject status() {
        JsonObject counts = new JsonObject();
        counts.addProperty("late", late.get());
        counts.addProperty("refused", refused.get());
        return counts;
    }
}
