package pushbench.tomcat6;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.servlet.ServletOutputStream;
import javax.servlet.http.HttpServletResponse;
import org.apache.catalina.CometEvent;
import pushbench.core.Answer;
import pushbench.core.BodyBuffer;
import pushbench.core.Endpoint;
import pushbench.core.LogManager;
import pushbench.core.PushRequest;
import pushbench.core.PushSpec;
import pushbench.core.RequestObserver;

/**
 * One Comet connection's state across its events, and the core's observer for it once it is held.
 *
 * Threads: the container calls event() on its threads; emitters and timers call write()/complete() on
 * theirs. {@code responseLock} serializes every write with the container's end of the request, so nothing
 * touches the response after END/ERROR. CometEvent.close() runs once (atomic flag); if the container is
 * inside event() for this connection at that moment, the close is left to that thread at the end of the
 * event, so Tomcat never sees a close from another thread in the middle of its own event processing.
 */
final class Exchange implements RequestObserver {
    private static final String NDJSON = "application/x-ndjson";

    private final CometEvent event;
    private final HttpServletResponse response;
    private final LogManager log;
    private final Object responseLock = new Object();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final BodyBuffer body = new BodyBuffer();
    private Endpoint endpoint; // container threads only
    private int expected = -1;
    private boolean awaitingBody;
    private PushSpec spec; // guarded by responseLock
    private PushRequest push; // guarded by responseLock
    private boolean ended; // guarded by responseLock
    private ServletOutputStream out; // guarded by responseLock
    private int eventDepth; // guarded by this
    private boolean closeDeferred; // guarded by this

    Exchange(CometEvent event, LogManager log) {
        this.event = event;
        this.response = event.getHttpServletResponse();
        this.log = log;
    }

    // ---- body, on container threads ----

    void expectBody(Endpoint endpoint, int contentLength) {
        this.endpoint = endpoint;
        this.expected = contentLength;
        this.awaitingBody = true;
    }

    Endpoint endpoint() {
        return endpoint;
    }

    boolean awaitingBody() {
        return awaitingBody;
    }

    void bodyDone() {
        awaitingBody = false;
    }

    BodyBuffer body() {
        return body;
    }

    int expected() {
        return expected;
    }

    boolean bodyComplete() {
        return expected >= 0 && body.size() >= expected;
    }

    // ---- answers of control endpoints, on container threads ----

    void answer(Answer answer) throws IOException {
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        synchronized (responseLock) {
            response.setStatus(answer.status());
            response.setContentType(answer.contentType());
            if (answer.allow() != null) {
                response.setHeader("Allow", answer.allow());
            }
            // Tomcat 6 closes a Comet connection after each request: tell the client not to reuse it.
            response.setHeader("Connection", "close");
            response.setContentLength(bytes.length);
            response.getOutputStream().write(bytes);
        }
        close();
    }

    // ---- a held request ----

    /** Before registering: no container timeout, and for comet the status and headers at once. */
    void hold(PushSpec spec) throws IOException {
        synchronized (responseLock) {
            this.spec = spec;
            response.setHeader("Connection", "close");
            if (spec.isComet()) {
                response.setStatus(HttpServletResponse.SC_OK);
                response.setContentType(NDJSON);
                response.flushBuffer();
            }
        }
        try {
            // The core times polls out itself; the connector's own timeout must not end the request first.
            event.setTimeout(Integer.MAX_VALUE);
        } catch (Exception e) { // UnsupportedOperationException where the connector has no comet timeouts
            log.info("could not lift the comet timeout: " + e);
        }
    }

    void attach(PushRequest request) {
        boolean alreadyEnded;
        synchronized (responseLock) {
            push = request;
            alreadyEnded = ended;
        }
        if (alreadyEnded) {
            request.abandon();
        }
    }

    boolean isHeld() {
        synchronized (responseLock) {
            return push != null && push.isOpen();
        }
    }

    @Override
    public void write(String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        synchronized (responseLock) {
            if (ended) {
                throw new IOException("the container has ended this request");
            }
            if (out == null) {
                if (!spec.isComet()) {
                    response.setStatus(HttpServletResponse.SC_OK);
                    response.setContentType("application/json");
                    response.setContentLength(bytes.length);
                }
                out = response.getOutputStream();
            }
            out.write(bytes);
            out.flush();
        }
    }

    @Override
    public void complete() {
        close();
    }

    /** END with SERVER_SHUTDOWN / WEBAPP_RELOAD: the held request gets its shutdown clear record. */
    void shutdown() {
        PushRequest request;
        synchronized (responseLock) {
            request = push;
        }
        if (request != null) {
            request.shutdown();
        }
        containerEnded();
    }

    /** END or ERROR: nothing is written to this response again; the request manager forgets it. */
    void containerEnded() {
        PushRequest request;
        synchronized (responseLock) {
            ended = true;
            request = push;
        }
        if (request != null) {
            request.abandon();
        }
    }

    // ---- closing exactly once ----

    /** True on a container thread while it runs event() (for any connection). */
    private static final ThreadLocal<Boolean> IN_EVENT = new ThreadLocal<>();

    synchronized void enterEvent() {
        eventDepth++;
        IN_EVENT.set(Boolean.TRUE);
    }

    void leaveEvent() {
        IN_EVENT.remove();
        boolean closeNow;
        synchronized (this) {
            eventDepth--;
            closeNow = eventDepth == 0 && closeDeferred;
            if (closeNow) {
                closeDeferred = false;
            }
        }
        if (closeNow) {
            doClose();
        }
    }

    /** Ends the Comet request once; from another thread during an event, at the end of that event. */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (IN_EVENT.get() == null) {
            synchronized (this) {
                if (eventDepth > 0) {
                    closeDeferred = true;
                    return;
                }
            }
        }
        doClose();
    }

    private void doClose() {
        try {
            event.close();
        } catch (IOException | RuntimeException e) {
            log.info("comet close: " + e);
        }
    }
}
