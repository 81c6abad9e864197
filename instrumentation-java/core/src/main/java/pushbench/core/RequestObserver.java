package pushbench.core;

import java.io.IOException;

/**
 * The Observer between the shared core and a container's request handler (the study's section 3.1.1).
 * The core is the subject: it decides what to write to a held request and when the request is over; the
 * Tomcat 6 and Tomcat 7 handlers implement this interface to do the actual I/O.
 *
 * Why not java.util.Observer/Observable as in the study: Observable must be subclassed, carries an untyped
 * Object argument and its notify loop runs under no per-request guarantees; it is also deprecated since
 * Java 9. Two typed callbacks make the contract explicit and let the core enforce it:
 * <ul>
 * <li>{@link #write} is called with the request's lock held, so writes to one response never overlap, and
 *     never after the request is completed.</li>
 * <li>{@link #complete} is called at most once, after the last write, and without that lock held, so a
 *     container that runs listeners synchronously (AsyncContext.complete, CometEvent.close) cannot deadlock
 *     against an emitter that is writing.</li>
 * </ul>
 * When the container itself reports the request over (client gone, END, onComplete), the handler calls
 * {@link PushRequest#abandon()} and closes the response itself; complete() is then never called.
 */
public interface RequestObserver {
    /**
     * Writes one record (a comet line ends in '\n') and flushes it to the client.
     *
     * @throws IOException if the client has gone; the core then completes the request silently
     */
    void write(String text) throws IOException;

    /** Ends the response: the request was answered (poll), cleared, or its client went away. */
    void complete();

    /**
     * Before the last record of a request that /event/clear ({@code "clear"}) or the server's shutdown
     * ({@code "shutdown"}) completes. A WebSocket closes with the code that says which (1000, 1001).
     */
    default void clearing(String reason) {
    }

    /**
     * An SSE or WebSocket stream whose client does not read is cut (docs/protocol.md "Clients that do not
     * read"): end its connection at once, with nothing more written, from the thread that cut it, without
     * waiting for a write in progress. {@link #complete} still follows, after that write has returned.
     * Default: nothing to close early.
     */
    default void abort() {
    }

    /**
     * How long after a poll's duration the core's own timer expires it. The default, 0: the core times
     * polls out itself. A handler whose container has a timeout of its own that ends a poll better (Tomcat
     * 6's Comet TIMEOUT event, after which the connection stays open for the client's next request)
     * returns a grace and calls {@link PushRequest#expire()} from that timeout; the core's timer is then
     * only the fallback for a container timeout that does not come. Asked once, when the poll is opened.
     */
    default long timeoutGraceMillis() {
        return 0;
    }

    /**
     * With a grace: the fallback timer's tick. Above 0, a poll's fallback fires at the first multiple of
     * it (on the core's clock) at or after its duration plus the grace, so the fallbacks of many polls
     * come together and leave the container quiet moments between them (Tomcat 6 looks for due timeouts
     * only when its selector is quiet). 0, the default: each poll's fallback at its own time.
     */
    default long timeoutTickMillis() {
        return 0;
    }
}
