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
 * routes a request (400 a dot segment, 404, 405), reads a POST body by the rules of {@link Bodies} (413,
 * 408, 503, 400 malformed), answers every endpoint but a held POST /request, and hands that one to the
 * container's {@link #hold}. Tomcat 7 (Servlet 3.0 async) and tc6-bio
 * (a CometProcessor on the blocking connector gets service() calls) use service() as it is; Tomcat 6's
 * CometProcessor on NIO routes its events through {@link #route} and {@link Instrumentation#handle}.
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
     * The container's part of holding a valid comet or poll: prepare the response (a {@link HeldResponse}),
     * then register it with {@link Instrumentation#open} and attach the request it returns.
     */
    protected abstract void hold(HttpServletRequest request, HttpServletResponse response, PushSpec spec)
            throws IOException;

    /**
     * The read wait of this request's socket, so each blocking body read waits at most what is left of the
     * body deadline; null where the container's socket cannot be reached (the connector's timeout then
     * bounds each read, and the deadline is checked between reads).
     */
    protected abstract ReadWait readWaitOf(HttpServletRequest request);

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long start = System.nanoTime();
        Endpoint.Route route = route(request);
        if (route.rejection != null) {
            send(response, route.rejection);
            return;
        }
        byte[] body = EMPTY;
        if (route.endpoint.hasBody()) {
            ReadWait wait = readWait(request);
            try {
                body = new BodyReader(request.getInputStream(), request.getContentLength(), start,
                        inst.bodies(), wait).read();
            } catch (BadInput e) {
                refuse(response, e, wait);
                return;
            }
        }
        Answer answer = inst.handle(route.endpoint, clientOf(request, route.endpoint), body,
                spec -> hold(request, response, spec));
        if (answer != null) {
            send(response, answer);
        }
    }

    /** The endpoint of a request's method and path, or the answer that refuses it. */
    public static Endpoint.Route route(HttpServletRequest request) {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        return Endpoint.route(request.getMethod(), path);
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
     * Answers a request whose body is left unread, and ends the connection: the answer is flushed, then
     * the container is told not to wait for the rest of the body ({@link ReadWait#leaveRestUnread}).
     */
    private static void refuse(HttpServletResponse response, BadInput refusal, ReadWait wait) throws IOException {
        response.setHeader("Connection", "close");
        send(response, refusal.toAnswer());
        response.flushBuffer();
        wait.leaveRestUnread();
    }

    /** Writes a whole answer: status, type, Allow if any, Content-Length and body. */
    public static void send(HttpServletResponse response, Answer answer) throws IOException {
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        response.setStatus(answer.status());
        response.setContentType(answer.contentType());
        if (answer.allow() != null) {
            response.setHeader("Allow", answer.allow());
        }
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }
}
