package pushbench.tomcat7;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.servlet.AsyncContext;
import javax.servlet.AsyncEvent;
import javax.servlet.AsyncListener;
import javax.servlet.ServletOutputStream;
import javax.servlet.http.HttpServletResponse;
import pushbench.core.LogManager;
import pushbench.core.PushRequest;
import pushbench.core.PushSpec;
import pushbench.core.RequestObserver;

/**
 * The study's AsyncRequestMonitor (section 3.1.1.2): the container's AsyncListener and the core's
 * observer for one held request.
 * <ul>
 * <li>core → container: {@link #write} puts a record on the wire, {@link #complete} ends the async cycle;</li>
 * <li>container → core: onComplete/onError tell the request manager the request is over (client gone,
 *     or completed), onTimeout is a safety net behind the core's own poll timeout.</li>
 * </ul>
 * {@code responseLock} serializes writes with the container's end of the request: once the container has
 * reported the request over, nothing touches the (possibly recycled) response again. complete() is called
 * through one atomic flag, so AsyncContext.complete() runs at most once and never after the container
 * itself completed the request (no "asyncComplete() not valid" errors).
 */
final class AsyncRequestMonitor implements AsyncListener, RequestObserver {
    private final AsyncContext async;
    private final HttpServletResponse response;
    private final PushSpec spec;
    private final LogManager log;
    private final Object responseLock = new Object();
    private final AtomicBoolean completed = new AtomicBoolean();
    private boolean ended; // guarded by responseLock: the container ended the request
    private PushRequest push; // guarded by responseLock
    private ServletOutputStream out; // guarded by responseLock
    private boolean finishing; // guarded by responseLock: complete() is under way, the socket is Tomcat's again
    private SocketChannel channel; // guarded by responseLock: for probeClientGone(), null when not probed
    private boolean closeAfter; // guarded by responseLock: the probe consumed bytes the client sent early
    private long lastWriteNanos = System.nanoTime(); // guarded by responseLock
    /** A request written to within this time is known to be alive; only idle ones are probed. */
    static final long PROBE_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(750);
    private final ByteBuffer probeBuffer = ByteBuffer.allocate(1); // guarded by responseLock

    AsyncRequestMonitor(AsyncContext async, HttpServletResponse response, PushSpec spec, LogManager log) {
        this.async = async;
        this.response = response;
        this.spec = spec;
        this.log = log;
    }

    /** Comet: status and headers go out at once; the body is chunked (no length) and one line per record. */
    void beginStream() throws IOException {
        synchronized (responseLock) {
            response.setStatus(HttpServletResponse.SC_OK);
            response.setContentType(AsyncPushServlet.NDJSON);
            response.flushBuffer();
        }
    }

    void probeWith(SocketChannel socket) {
        synchronized (responseLock) {
            channel = socket;
        }
    }

    /**
     * Checks an idle held request's socket without blocking: a read of -1 (or an error) means the client
     * closed its end. Runs under responseLock, so never during a write and never once the request is
     * handed back to Tomcat (after complete() or the container's end), when the socket may already carry
     * the client's next request. A client that sends bytes while it waits (it should not) is not probed
     * again, and a poll's answer then closes the connection, as those bytes are gone.
     *
     * @return true if the client is gone
     */
    boolean probeClientGone() {
        synchronized (responseLock) {
            if (ended || finishing || channel == null || System.nanoTime() - lastWriteNanos < PROBE_IDLE_NANOS) {
                return false;
            }
            try {
                probeBuffer.clear();
                int n = channel.read(probeBuffer);
                if (n > 0) {
                    channel = null;
                    closeAfter = true;
                }
                return n < 0;
            } catch (IOException e) {
                return true;
            }
        }
    }

    /** The client vanished: the request manager forgets the request and the async cycle ends. */
    void clientGone() {
        containerEnded();
        complete();
    }

    boolean isOver() {
        synchronized (responseLock) {
            return ended || finishing;
        }
    }

    /** The core registered the request; if the container already ended it, drop it at once. */
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
                    if (closeAfter) {
                        response.setHeader("Connection", "close");
                    }
                }
                out = response.getOutputStream();
            }
            out.write(bytes);
            out.flush();
            lastWriteNanos = System.nanoTime();
        }
    }

    @Override
    public void complete() {
        if (completed.compareAndSet(false, true)) {
            synchronized (responseLock) {
                finishing = true; // waits for a probe in progress; no probe after this
            }
            try {
                async.complete();
            } catch (IllegalStateException e) {
                // The container completed the request concurrently (client gone): nothing left to end.
                log.info("complete after the container ended the request: " + e.getMessage());
            }
        }
    }

    /** The container says the request is over: no more writes, and the request manager forgets it. */
    private void containerEnded() {
        PushRequest request;
        synchronized (responseLock) {
            ended = true;
            request = push;
        }
        if (request != null) {
            request.abandon();
        }
    }

    @Override
    public void onComplete(AsyncEvent event) {
        completed.set(true);
        containerEnded();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        PushRequest request;
        synchronized (responseLock) {
            request = push;
        }
        // Only reached if the core's own timer is late by the whole margin; still exactly one final record.
        if (request == null || !request.expire()) {
            complete();
        }
    }

    @Override
    public void onError(AsyncEvent event) {
        log.info("async error: " + event.getThrowable());
        containerEnded();
        complete();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        // Called only when startAsync() is called again on this request, which the servlet never does; the
        // request is added to the request manager right after the first startAsync(), in the servlet.
    }
}
