package pushbench.tomcat6;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.apache.catalina.CometEvent;
import org.apache.catalina.CometProcessor;
import pushbench.core.Answer;
import pushbench.core.BadInput;
import pushbench.core.Bodies;
import pushbench.core.BodyBuffer;
import pushbench.core.Endpoint;
import pushbench.core.Head;
import pushbench.core.PushServlet;
import pushbench.core.PushSpec;
import pushbench.core.ReadWait;
import pushbench.core.TomcatReach;

/**
 * The Tomcat 6 request handler (study section 3.1.1.1): a CometProcessor mapped to /*, routing through the
 * core's {@link PushServlet}. With the NIO connector every request to a Comet servlet arrives through
 * {@link #event}, never service(), so:
 * <ul>
 * <li>BEGIN: route ({@link Head}); GET endpoints (and bodiless POSTs) are answered and closed at once, an
 *     SSE stream is held; a WebSocket upgrade is refused (400: Tomcat 6 has no WebSocket API);</li>
 * <li>READ: the POST body arrives, possibly in pieces; once complete, control endpoints are answered and
 *     closed, and POST /request is handed to the request manager (which holds it);</li>
 * <li>END while a chunked body is awaited: the body's end (Tomcat's event for a READ that found the last
 *     chunk); the body is answered as after a READ.</li>
 * <li>END / ERROR: the request is over for the container (client gone, closed, server stopping); END may
 *     arrive twice after a close from another thread, so everything here is idempotent. A TIMEOUT error on
 *     a held poll is its timeout, answered in that event so the connection stays open (see
 *     {@link Exchange#hold}); on a held comet stream it is ignored, as streams have none. While the body
 *     is still awaited, a TIMEOUT is its deadline (408) and any other ERROR a body the connector could
 *     not read (400).</li>
 * </ul>
 */
public final class CometPushServlet extends PushServlet implements CometProcessor {
    private static final long serialVersionUID = 1L;
    static final String EXCHANGE = "pushbench.exchange";
    private static final TomcatReach.Step SOCKET = TomcatReach.field("socket");

    @Override
    public void destroy() {
        super.destroy();
        Exchange.stopTimers();
    }

    @Override
    public void event(CometEvent event) throws IOException, ServletException {
        HttpServletRequest request = event.getHttpServletRequest();
        Exchange exchange = (Exchange) request.getAttribute(EXCHANGE);
        if (exchange == null) {
            exchange = new Exchange(event, instrumentation().log());
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
        Head head = Head.of(request, speaksWebSocket());
        if (head.answer != null) {
            exchange.answer(head.answer);
            return;
        }
        if (head.stream != null) {
            hold(exchange, head.stream);
            return;
        }
        Endpoint endpoint = head.endpoint;
        if (!endpoint.hasBody()) {
            exchange.answer(instrumentation().answer(endpoint, clientOf(request, endpoint), EMPTY));
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
            return;
        }
        // Otherwise the body comes with READ events (Tomcat fires one at once if it is already here).
        exchange.awaitBodyWithin(instrumentation().bodies());
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
                    refuseBody(exchange, BodyBuffer.tooLargeError());
                    return;
                }
                // Bytes after the body (a held request's client should send none) are read and dropped.
            } while (in.available() > 0);
        } catch (IOException e) {
            if (exchange.awaitingBody()) {
                // A body the connector cannot decode (malformed chunked encoding), or a client that reset.
                refuseBody(exchange, Bodies.malformed(String.valueOf(e.getMessage())));
                return;
            }
            eof = true; // the client reset the connection
        }
        if (exchange.awaitingBody()) {
            // With a Content-Length, -1 before the whole body only means "nothing more yet": Tomcat fires a
            // READ right after BEGIN whenever a body is announced, even if it has not arrived. A client that
            // stalls or trickles here is answered 408 at the body deadline: by the connector's TIMEOUT, a READ
            // past the deadline, or the core's timer (Exchange.fallBackAtDeadline), whichever comes first.
            boolean done = exchange.expected() >= 0 ? exchange.bodyComplete() : eof;
            if (!done) {
                awaitRest(exchange);
            } else if (exchange.endBody()) {
                process(exchange, exchange.body().toByteArray());
            }
        } else if (exchange.answeredByTimer()) {
            exchange.close(); // the client's next byte or hang-up after its late body's 408: on this thread
        } else if (eof) {
            // The poller saw the client close its end while its request was held: it is gone.
            exchange.containerEnded();
            exchange.close();
        }
    }

    /** A body still incomplete after a READ: 408 if its deadline has passed, else wait for the rest. */
    private void awaitRest(Exchange exchange) throws IOException {
        Bodies bodies = instrumentation().bodies();
        if (exchange.awaitBodyWithin(bodies)) {
            exchange.fallBackAtDeadline(bodies);
        } else {
            refuseBody(exchange, bodies.late());
        }
    }

    /** Answers a body that is not read to its end: the answer closes the connection, as every answer here does. */
    private static void refuseBody(Exchange exchange, BadInput refusal) throws IOException {
        if (exchange.endBody()) {
            exchange.answer(refusal.toAnswer());
        }
    }

    private void process(Exchange exchange, byte[] body) throws IOException {
        Answer answer = instrumentation().handle(exchange.endpoint(), null, body, spec -> hold(exchange, spec));
        if (answer != null) {
            exchange.answer(answer);
        }
    }

    /** A comet stream, poll or SSE stream held on this Comet connection. */
    private void hold(Exchange exchange, PushSpec spec) throws IOException {
        exchange.hold(spec);
        exchange.attach(instrumentation().open(spec, exchange));
    }

    private void end(Exchange exchange, CometEvent.EventSubType subType) throws IOException {
        if (subType == null && exchange.expected() < 0 && exchange.awaitingBody()) {
            // A chunked body's end: CoyoteAdapter.event turns the READ of a connection whose Request.read()
            // finds no more body and no error (the last chunk read) into END, not READ (an empty chunked
            // body gets this END right after BEGIN). The body is whole: it is answered as any other.
            if (exchange.endBody()) {
                process(exchange, exchange.body().toByteArray());
            }
            return;
        }
        exchange.endBody();
        if (subType == CometEvent.EventSubType.SERVER_SHUTDOWN || subType == CometEvent.EventSubType.WEBAPP_RELOAD) {
            exchange.shutdown();
        } else {
            exchange.containerEnded();
        }
        exchange.close();
    }

    private void error(Exchange exchange, CometEvent.EventSubType subType) throws IOException {
        if (subType == CometEvent.EventSubType.TIMEOUT && exchange.awaitingBody()) {
            // A body not whole by its deadline (awaitBodyWithin set this timeout): 408.
            refuseBody(exchange, instrumentation().bodies().late());
            return;
        }
        if (exchange.awaitingBody()) {
            // The connector could not read the body: CoyoteAdapter turns the chunked decoder's exception
            // (malformed chunked encoding) into this event, as CLIENT_DISCONNECT, instead of a READ. A client
            // that really reset mid-body gets the answer nowhere, which is harmless.
            refuseBody(exchange, Bodies.malformed("the connector failed to read it"));
            return;
        }
        if (subType == CometEvent.EventSubType.TIMEOUT && exchange.containerTimeout()) {
            return; // see the class comment: the connection stays open
        }
        exchange.endBody();
        exchange.containerEnded();
        exchange.close();
    }

    /**
     * Without the NIO connector (tc6-bio: the blocking Http11Protocol) Tomcat calls service() instead of
     * event(), and the core's routing answers as usual; a request to hold (comet, poll, SSE) is held on this
     * container thread ({@link BlockingHold}) until the core completes it, so the protocol is the same on
     * both connectors.
     */
    /** tc6-bio: the blocking connector's socket (Http11Processor.socket), whose SO_TIMEOUT each body read waits. */
    @Override
    protected ReadWait readWaitOf(HttpServletRequest request) {
        try {
            return ReadWait.of((Socket) SOCKET.from(TomcatReach.processorOf(request)));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    @Override
    protected void hold(HttpServletRequest request, HttpServletResponse response, PushSpec spec) throws IOException {
        BlockingHold hold = new BlockingHold(response);
        hold.begin(spec, request);
        hold.attach(instrumentation().open(spec, hold));
        hold.await();
    }
}
