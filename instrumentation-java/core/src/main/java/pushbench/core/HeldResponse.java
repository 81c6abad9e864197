package pushbench.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import javax.servlet.ServletOutputStream;
import javax.servlet.http.HttpServletResponse;

/**
 * The response of one held POST /request and the core's observer for it: the attach / write / end protocol
 * every Tomcat handler shares. Subclasses add their container's glue only (Tomcat 6: the CometEvent, its
 * event threads and close; Tomcat 7: the AsyncContext and its listener; tc6-bio: the blocked container
 * thread).
 * <ul>
 * <li>{@link #lock} serializes every write with the container's end of the request
 *     ({@link #containerEnded}): after it nothing touches the (possibly recycled) response again;</li>
 * <li>{@link #attach} registers the core's request; one the container ended before that is abandoned at
 *     once;</li>
 * <li>a comet stream's status and headers go out at once ({@link #begin}), its records follow one line
 *     each, flushed; a poll's status and headers go out with its one record, with its Content-Length.</li>
 * </ul>
 * The hooks run under {@link #lock}: {@link #writable}, {@link #closesConnection}, {@link #written}.
 */
public abstract class HeldResponse implements RequestObserver {
    public static final String NDJSON = "application/x-ndjson";

    /** Guards the response and this object's state; subclasses guard their own container state with it. */
    protected final Object lock = new Object();
    private final HttpServletResponse response;
    private PushSpec spec; // guarded by lock
    private PushRequest push; // guarded by lock
    private boolean ended; // guarded by lock: the container ended the request
    private ServletOutputStream out; // guarded by lock: set by the first write

    protected HeldResponse(HttpServletResponse response) {
        this.response = response;
    }

    /** Before registering: a comet stream's status and headers go out at once (its body is chunked). */
    public void begin(PushSpec held) throws IOException {
        synchronized (lock) {
            spec = held;
            if (held.isComet()) {
                if (closesConnection()) {
                    response.setHeader("Connection", "close");
                }
                response.setStatus(HttpServletResponse.SC_OK);
                response.setContentType(NDJSON);
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
        synchronized (lock) {
            if (ended || !writable()) {
                throw new IOException("the container has ended this request");
            }
            if (out == null) {
                if (!spec.isComet()) {
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

    protected final boolean ended() {
        synchronized (lock) {
            return ended;
        }
    }

    /** A poll whose answer has been written and that the container has not ended. */
    protected final boolean pollAnswered() {
        synchronized (lock) {
            return spec != null && !spec.isComet() && out != null && !ended;
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
