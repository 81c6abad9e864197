package pushbench.core;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import javax.servlet.ServletOutputStream;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * The response of one held request (a comet stream or poll, POST /request; an SSE stream, GET /request) and
 * the core's observer for it: the attach / write / end protocol every Tomcat handler shares. Subclasses add their container's glue only (Tomcat 6: the CometEvent, its
 * event threads and close; Tomcat 7: the AsyncContext and its listener; tc6-bio: the blocked container
 * thread).
 * <ul>
 * <li>{@link #lock} serializes every write with the container's end of the request
 *     ({@link #containerEnded}): after it nothing touches the (possibly recycled) response again;</li>
 * <li>{@link #attach} registers the core's request; one the container ended before that is abandoned at
 *     once;</li>
 * <li>a stream's status and headers go out at once ({@link #begin}), its records follow as the core frames
 *     them (a comet line, an SSE event), each flushed; a poll's status and headers go out with its one
 *     record, with its Content-Length. An SSE stream's records reach {@link #write} from a writer thread
 *     of the core's {@link Outbox}, never from the emit cycle.</li>
 * </ul>
 * The hooks run under {@link #lock}: {@link #writable}, {@link #closesConnection}, {@link #written}.
 */
public abstract class HeldResponse implements RequestObserver {
    public static final String NDJSON = "application/x-ndjson";
    public static final String EVENT_STREAM = "text/event-stream";

    /** Guards the response and this object's state; subclasses guard their own container state with it. */
    protected final Object lock = new Object();
    private final HttpServletResponse response;
    private PushSpec spec; // guarded by lock
    private PushRequest push; // guarded by lock
    private volatile boolean ended; // written under lock: the container ended the request
    private final AtomicInteger writing = new AtomicInteger(); // writes waiting for or holding the lock
    private ServletOutputStream out; // guarded by lock: set by the first write
    private volatile Closeable connection; // an SSE stream's, closed at once if it is cut; null if out of reach

    protected HeldResponse(HttpServletResponse response) {
        this.response = response;
    }

    /**
     * Before registering: a stream's status and headers go out at once (its body is chunked); an SSE stream
     * keeps its connection at hand, to cut it at once if its client does not read ({@link #abort}).
     */
    public void begin(PushSpec held, HttpServletRequest request) throws IOException {
        if (held.isQueued()) {
            connection = TomcatReach.connectionOf(request);
        }
        synchronized (lock) {
            spec = held;
            if (held.isStream()) {
                if (closesConnection()) {
                    response.setHeader("Connection", "close");
                }
                response.setStatus(HttpServletResponse.SC_OK);
                response.setContentType(held.isComet() ? NDJSON : EVENT_STREAM);
                if (!held.isComet()) {
                    response.setHeader("Cache-Control", "no-cache");
                }
                response.flushBuffer();
            }
        }
    }

    /** The core registered the request; if the container already ended it, drop it at once. */
    public final void attach(PushRequest request) {
        boolean alreadyEnded;
        synchronized (lock) {
            push = request;
            alreadyEnded = ended;
        }
        if (alreadyEnded) {
            request.abandon();
        }
    }

    @Override
    public final void write(String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        writing.incrementAndGet();
        try {
            writeLocked(bytes);
        } finally {
            writing.decrementAndGet();
        }
    }

    private void writeLocked(byte[] bytes) throws IOException {
        synchronized (lock) {
            if (ended || !writable()) {
                throw new IOException("the container has ended this request");
            }
            if (out == null) {
                if (spec.isPoll()) {
                    response.setStatus(HttpServletResponse.SC_OK);
                    response.setContentType(Answer.JSON);
                    response.setContentLength(bytes.length);
                    if (closesConnection()) {
                        response.setHeader("Connection", "close");
                    }
                }
                out = response.getOutputStream();
            }
            out.write(bytes);
            out.flush();
            written();
        }
    }

    /**
     * The stream is cut (its client does not read): its connection is closed at once, without the lock, so
     * a write blocked on that client fails; the container's end follows through {@link #complete}.
     */
    @Override
    public final void abort() {
        Closeable socket = connection;
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException | RuntimeException e) {
                // already closed
            }
        }
    }

    /** The container ended the request (client gone, END/ERROR, onComplete/onError): no more writes, and the core forgets it. */
    public final void containerEnded() {
        PushRequest request;
        synchronized (lock) {
            ended = true;
            request = push;
        }
        if (request != null) {
            request.abandon();
        }
    }

    /** The core's request, once attached; else null. */
    protected final PushRequest request() {
        synchronized (lock) {
            return push;
        }
    }

    /** What is held, once {@link #begin} ran; else null. */
    protected final PushSpec spec() {
        synchronized (lock) {
            return spec;
        }
    }

    /** Without the lock: never waits for a write in progress. */
    protected final boolean ended() {
        return ended;
    }

    /** Without the lock: a write is in progress or waiting for it (a probe leaves such a request alone). */
    protected final boolean writing() {
        return writing.get() > 0;
    }

    /** A poll whose answer has been written and that the container has not ended. */
    protected final boolean pollAnswered() {
        synchronized (lock) {
            return spec != null && spec.isPoll() && out != null && !ended;
        }
    }

    /** Under {@link #lock}: false once the handler has closed the response itself. */
    protected boolean writable() {
        return true;
    }

    /** Under {@link #lock}: the headers being written say Connection: close (the connection ends after this answer). */
    protected boolean closesConnection() {
        return false;
    }

    /** Under {@link #lock}, after each record was written and flushed. */
    protected void written() {
    }
}
