package pushbench.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * The servlet every Tomcat handler is: the protocol's request routing, written once. {@link #service}
 * decides what a request's head asks for ({@link Head}: 400 a dot segment, 404, 405, a WebSocket upgrade,
 * an SSE stream), reads a POST body by the rules of {@link Bodies} (413, 408, 503, 400 malformed), answers
 * every endpoint but a held one, and hands a held comet, poll or SSE stream to the container's
 * {@link #hold}, a WebSocket upgrade to its {@link #upgrade}. Tomcat 7 (Servlet 3.0 async) and tc6-bio
 * (a CometProcessor on the blocking connector gets service() calls) use service() as it is; Tomcat 6's
 * CometProcessor on NIO routes its events through {@link Head} and {@link Instrumentation#handle}.
 */
public abstract class PushServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    protected static final byte[] EMPTY = new byte[0];
    private static final Logger LOG = Logger.getLogger("pushbench");
    private static volatile boolean warnedNoReadWait;

    private transient Instrumentation inst;

    @Override
    public void init() throws ServletException {
        inst = new Instrumentation();
    }

    /** Without a container (tests): serve with this instrumentation. */
    public void init(Instrumentation instrumentation) {
        inst = instrumentation;
    }

    public final Instrumentation instrumentation() {
        return inst;
    }

    @Override
    public void destroy() {
        inst.shutdown();
    }

    /**
     * The container's part of holding a valid comet, poll or SSE stream: prepare the response (a
     * {@link HeldResponse}), then register it with {@link Instrumentation#open} and attach the request it returns.
     */
    protected abstract void hold(HttpServletRequest request, HttpServletResponse response, PushSpec spec)
            throws IOException;

    /**
     * The read wait of this request's socket, so each blocking body read waits at most what is left of the
     * body deadline; null where the container's socket cannot be reached (the connector's timeout then
     * bounds each read, and the deadline is checked between reads).
     */
    protected abstract ReadWait readWaitOf(HttpServletRequest request);

    /** Whether this server takes WebSocket upgrades ({@link #upgrade}); false: it refuses them (400). */
    protected boolean speaksWebSocket() {
        return false;
    }

    /** The container's part of a WebSocket upgrade that {@link Head} took: only where {@link #speaksWebSocket}. */
    protected void upgrade(HttpServletRequest request, HttpServletResponse response) throws IOException {
        throw new IllegalStateException("this server does not speak WebSocket");
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long start = System.nanoTime();
        Head head = Head.of(request, speaksWebSocket());
        if (head.closes) {
            refuse(response, head.answer, readWait(request));
        } else if (head.answer != null) {
            send(response, head.answer);
        } else if (head.upgrade) {
            upgrade(request, response);
        } else if (head.stream != null) {
            hold(request, response, head.stream);
        } else {
            serve(request, response, head.endpoint, start);
        }
    }

    /** An endpoint's body (POST) read by the body rules, then its answer, or the POST /request held. */
    private void serve(HttpServletRequest request, HttpServletResponse response, Endpoint endpoint, long start)
            throws IOException {
        byte[] body = EMPTY;
        if (endpoint.hasBody()) {
            ReadWait wait = readWait(request);
            try {
                body = new BodyReader(request.getInputStream(), request.getContentLength(), start,
                        inst.bodies(), wait).read();
            } catch (BadInput e) {
                refuse(response, e.toAnswer(), wait);
                return;
            }
        }
        Answer answer = inst.handle(endpoint, clientOf(request, endpoint), body, spec -> hold(request, response, spec));
        if (answer != null) {
            send(response, answer);
        }
    }

    /** /timestamp's client parameter; null for every other endpoint. */
    public static String clientOf(HttpServletRequest request, Endpoint endpoint) {
        return endpoint == Endpoint.TIMESTAMP ? request.getParameter("client") : null;
    }

    private ReadWait readWait(HttpServletRequest request) {
        ReadWait wait = readWaitOf(request);
        if (wait != null) {
            return wait;
        }
        if (!warnedNoReadWait) {
            warnedNoReadWait = true;
            LOG.log(Level.WARNING, "cannot reach the socket of requests: a body read waits up to the connector's "
                    + "connectionTimeout, and the body deadline is checked between reads");
        }
        return ReadWait.NONE;
    }

    /**
     * Answers a request that ends its connection (a refused body left unread, a refused upgrade): the answer
     * is flushed with Connection: close, then the container is told not to wait for anything more of it
     * ({@link ReadWait#leaveRestUnread}), which closes the connection on every connector (Tomcat 7 keeps a
     * connection whose answer has a Content-Length, whatever its Connection header says).
     */
    private static void refuse(HttpServletResponse response, Answer refusal, ReadWait wait) throws IOException {
        response.setHeader("Connection", "close");
        send(response, refusal);
        response.flushBuffer();
        wait.leaveRestUnread();
    }

    /**
     * Writes a whole answer: status, type, its own header if any (Allow...), Content-Length and body; a
     * stream's head, its status and headers alone.
     */
    public static void send(HttpServletResponse response, Answer answer) throws IOException {
        response.setStatus(answer.status());
        response.setContentType(answer.contentType());
        if (answer.headerName() != null) {
            response.setHeader(answer.headerName(), answer.headerValue());
        }
        if (!answer.hasBody()) {
            response.flushBuffer();
            return;
        }
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }
}
