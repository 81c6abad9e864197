package pushbench.tomcat6;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.apache.catalina.CometEvent;
import org.apache.catalina.CometProcessor;
import pushbench.core.BadInput;
import pushbench.core.BodyBuffer;
import pushbench.core.Endpoint;
import pushbench.core.Instrumentation;
import pushbench.core.PushSpec;

/**
 * The Tomcat 6 request handler (study section 3.1.1.1): a CometProcessor mapped to /*. With the NIO
 * connector every request to a Comet servlet arrives through {@link #event}, never service(), so:
 * <ul>
 * <li>BEGIN: route; GET endpoints (and bodiless POSTs) are answered and closed at once;</li>
 * <li>READ: the POST body arrives, possibly in pieces; once complete, control endpoints are answered and
 *     closed, and POST /request is handed to the request manager (which holds it);</li>
 * <li>END / ERROR: the request is over for the container (client gone, closed, server stopping); END may
 *     arrive twice after a close from another thread, so everything here is idempotent. A TIMEOUT error on
 *     a held poll is its timeout, answered in that event so the connection stays open (see
 *     {@link Exchange#hold}); on a held comet stream it is ignored, as streams have none.</li>
 * </ul>
 */
public final class CometPushServlet extends HttpServlet implements CometProcessor {
    private static final long serialVersionUID = 1L;
    static final String EXCHANGE = "pushbench.exchange";
    private static final byte[] EMPTY = new byte[0];

    private transient Instrumentation inst;

    @Override
    public void init() throws ServletException {
        inst = new Instrumentation();
    }

    /** Used by tests to drive the servlet without a container. */
    void init(Instrumentation instrumentation) {
        inst = instrumentation;
    }

    @Override
    public void destroy() {
        inst.shutdown();
        Exchange.stopTimers();
    }

    @Override
    public void event(CometEvent event) throws IOException, ServletException {
        HttpServletRequest request = event.getHttpServletRequest();
        Exchange exchange = (Exchange) request.getAttribute(EXCHANGE);
        if (exchange == null) {
            exchange = new Exchange(event, inst.log());
            request.setAttribute(EXCHANGE, exchange);
        }
        exchange.enterEvent();
        try {
            switch (event.getEventType()) {
                case BEGIN:
                    begin(exchange, request);
                    break;
                case READ:
                    read(exchange, request);
                    break;
                case END:
                    end(exchange, event.getEventSubType());
                    break;
                case ERROR:
                    error(exchange, event.getEventSubType());
                    break;
                default:
                    break;
            }
        } finally {
            exchange.leaveEvent();
        }
    }

    private void begin(Exchange exchange, HttpServletRequest request) throws IOException {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        Endpoint.Route route = Endpoint.route(request.getMethod(), path);
        if (route.rejection != null) {
            exchange.answer(route.rejection);
            return;
        }
        Endpoint endpoint = route.endpoint;
        if (!endpoint.hasBody()) {
            String client = endpoint == Endpoint.TIMESTAMP ? request.getParameter("client") : null;
            exchange.answer(inst.answer(endpoint, client, EMPTY));
            return;
        }
        int length = request.getContentLength();
        if (length > BodyBuffer.LIMIT) {
            exchange.answer(BodyBuffer.tooLargeError().toAnswer());
            return;
        }
        exchange.expectBody(endpoint, length);
        boolean chunked = "chunked".equalsIgnoreCase(request.getHeader("Transfer-Encoding"));
        if (length == 0 || (length < 0 && !chunked)) {
            process(exchange, EMPTY); // no body will come, so no READ event either
        }
        // Otherwise the body comes with READ events (Tomcat fires one at once if it is already here).
    }

    private void read(Exchange exchange, HttpServletRequest request) throws IOException {
        InputStream in = request.getInputStream();
        byte[] chunk = BodyBuffer.chunkFor(exchange.expected());
        boolean eof = false;
        try {
            // Read everything available: Tomcat treats unread available bytes after READ as an error.
            do {
                int n = in.read(chunk);
                if (n < 0) {
                    eof = true;
                    break;
                }
                if (n > 0 && exchange.awaitingBody() && !exchange.body().append(chunk, 0, n)) {
                    exchange.bodyDone();
                    exchange.answer(BodyBuffer.tooLargeError().toAnswer());
                    return;
                }
                // Bytes after the body (a held request's client should send none) are read and dropped.
            } while (in.available() > 0);
        } catch (IOException e) {
            eof = true; // the client reset the connection
        }
        if (exchange.awaitingBody()) {
            // With a Content-Length, -1 before the whole body only means "nothing more yet": Tomcat fires a
            // READ right after BEGIN whenever a body is announced, even if it has not arrived. A client that
            // leaves here is ended by the ERROR event of the connection timeout.
            boolean done = exchange.expected() >= 0 ? exchange.bodyComplete() : eof;
            if (done) {
                exchange.bodyDone();
                process(exchange, exchange.body().toByteArray());
            }
        } else if (eof) {
            // The poller saw the client close its end while its request was held: it is gone.
            exchange.containerEnded();
            exchange.close();
        }
    }

    private void process(Exchange exchange, byte[] body) throws IOException {
        Endpoint endpoint = exchange.endpoint();
        if (endpoint != Endpoint.REQUEST) {
            exchange.answer(inst.answer(endpoint, null, body));
            return;
        }
        PushSpec spec;
        try {
            spec = inst.pushSpec(body);
        } catch (BadInput e) {
            exchange.answer(e.toAnswer());
            return;
        }
        if (spec.isPull()) {
            exchange.answer(inst.requests().pull(spec));
            return;
        }
        exchange.hold(spec);
        exchange.attach(inst.open(spec, exchange));
    }

    private void end(Exchange exchange, CometEvent.EventSubType subType) {
        if (subType == CometEvent.EventSubType.SERVER_SHUTDOWN || subType == CometEvent.EventSubType.WEBAPP_RELOAD) {
            exchange.shutdown();
        } else {
            exchange.containerEnded();
        }
        exchange.close();
    }

    private void error(Exchange exchange, CometEvent.EventSubType subType) throws IOException {
        if (subType == CometEvent.EventSubType.TIMEOUT && exchange.awaitingBody()) {
            // A body that stops coming: the connection timeout ends the wait with a 408.
            exchange.bodyDone();
            exchange.answer(BodyBuffer.timeoutError().toAnswer());
            return;
        }
        if (subType == CometEvent.EventSubType.TIMEOUT && exchange.containerTimeout()) {
            return; // see the class comment: the connection stays open
        }
        exchange.containerEnded();
        exchange.close();
    }

    /**
     * Without the NIO connector (tc6-bio: the blocking Http11Protocol) Tomcat calls service() instead of
     * event(). Control endpoints are answered as usual; POST /request is held on this container thread
     * ({@link BlockingHold}) until the core completes it, so the protocol is the same on both connectors.
     */
    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        Endpoint.Route route = Endpoint.route(request.getMethod(), path);
        if (route.rejection != null) {
            Exchange.send(response, route.rejection);
            return;
        }
        byte[] body = EMPTY;
        if (route.endpoint.hasBody()) {
            BodyBuffer buffer = new BodyBuffer();
            if (request.getContentLength() > BodyBuffer.LIMIT) {
                buffer = null;
            } else {
                byte[] chunk = BodyBuffer.chunkFor(request.getContentLength());
                InputStream in = request.getInputStream();
                try {
                    for (int n = in.read(chunk); n >= 0 && buffer != null; n = in.read(chunk)) {
                        if (!buffer.append(chunk, 0, n)) {
                            buffer = null;
                        }
                    }
                } catch (SocketTimeoutException e) {
                    // A body that stops coming: the connector's read timeout (connectionTimeout) ends the wait.
                    response.setHeader("Connection", "close");
                    Exchange.send(response, BodyBuffer.timeoutError().toAnswer());
                    return;
                }
            }
            if (buffer == null) {
                response.setHeader("Connection", "close"); // the unread rest of the body is not worth draining
                Exchange.send(response, BodyBuffer.tooLargeError().toAnswer());
                return;
            }
            body = buffer.toByteArray();
        }
        if (route.endpoint == Endpoint.REQUEST) {
            holdOnThisThread(response, body);
            return;
        }
        String client = route.endpoint == Endpoint.TIMESTAMP ? request.getParameter("client") : null;
        Exchange.send(response, inst.answer(route.endpoint, client, body));
    }

    private void holdOnThisThread(HttpServletResponse response, byte[] body) throws IOException {
        PushSpec spec;
        try {
            spec = inst.pushSpec(body);
        } catch (BadInput e) {
            Exchange.send(response, e.toAnswer());
            return;
        }
        if (spec.isPull()) {
            Exchange.send(response, inst.requests().pull(spec));
            return;
        }
        BlockingHold hold = new BlockingHold(response, spec);
        if (spec.isComet()) {
            hold.beginStream();
        }
        hold.await(inst.open(spec, hold));
    }
}
