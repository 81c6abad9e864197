package pushbench.tomcat7;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.servlet.AsyncContext;
import javax.servlet.AsyncEvent;
import javax.servlet.AsyncListener;
import javax.servlet.http.HttpServletResponse;
import pushbench.core.HeldResponse;
import pushbench.core.LogManager;
import pushbench.core.PushRequest;

/**
 * The study's AsyncRequestMonitor (section 3.1.1.2): the container's AsyncListener for one held request,
 * and (through the core's {@link HeldResponse}) the core's observer for it.
 * <ul>
 * <li>core → container: records are written by {@link HeldResponse#write}, {@link #complete} ends the
 *     async cycle;</li>
 * <li>container → core: onComplete/onError tell the request manager the request is over (client gone,
 *     or completed), onTimeout is a safety net behind the core's own poll timeout.</li>
 * </ul>
 * complete() is called through one atomic flag, so AsyncContext.complete() runs at most once and never after
 * the container itself completed the request (no "asyncComplete() not valid" errors).
 */
final class AsyncRequestMonitor extends HeldResponse implements AsyncListener {
    /** A request written to within this time is known to be alive; only idle ones are probed. */
    static final long PROBE_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(750);

    private final AsyncContext async;
    private final LogManager log;
    private final AtomicBoolean completed = new AtomicBoolean();
    private volatile boolean finishing; // written under lock: complete() is under way, the socket is Tomcat's again
    private SocketChannel channel; // guarded by lock: for probeClientGone(), null when not probed
    private boolean closeAfter; // guarded by lock: the probe consumed bytes the client sent early
    private long lastWriteNanos = System.nanoTime(); // guarded by lock
    private final ByteBuffer probeBuffer = ByteBuffer.allocate(1); // guarded by lock

    AsyncRequestMonitor(AsyncContext async, HttpServletResponse response, LogManager log) {
        super(response);
        this.async = async;
        this.log = log;
    }

    void probeWith(SocketChannel socket) {
        synchronized (lock) {
            channel = socket;
        }
    }

    /**
     * Checks an idle held request's socket without blocking: a read of -1 (or an error) means the client
     * closed its end. Runs under the lock, so never during a write and never once the request is handed
     * back to Tomcat (after complete() or the container's end), when the socket may already carry the
     * client's next request. A client that sends bytes while it waits (it should not) is not probed again,
     * and a poll's answer then closes the connection, as those bytes are gone. A request with a write in
     * progress is not idle: it is left alone, so the probe never waits for a client that does not read.
     *
     * @return true if the client is gone
     */
    boolean probeClientGone() {
        if (writing()) {
            return false;
        }
        synchronized (lock) {
            if (ended() || finishing || channel == null || System.nanoTime() - lastWriteNanos < PROBE_IDLE_NANOS) {
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
        return ended() || finishing;
    }

    @Override
    protected boolean closesConnection() {
        return closeAfter;
    }

    @Override
    protected void written() {
        lastWriteNanos = System.nanoTime();
    }

    @Override
    public void complete() {
        if (completed.compareAndSet(false, true)) {
            synchronized (lock) {
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

    @Override
    public void onComplete(AsyncEvent event) {
        completed.set(true);
        containerEnded();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        PushRequest request = request();
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
