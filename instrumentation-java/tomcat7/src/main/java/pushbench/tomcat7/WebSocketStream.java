package pushbench.tomcat7;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import javax.websocket.CloseReason;
import javax.websocket.CloseReason.CloseCodes;
import javax.websocket.Endpoint;
import javax.websocket.EndpointConfig;
import javax.websocket.MessageHandler;
import javax.websocket.Session;
import pushbench.core.BadInput;
import pushbench.core.BodyBuffer;
import pushbench.core.Instrumentation;
import pushbench.core.Json;
import pushbench.core.PushRequest;
import pushbench.core.Records;
import pushbench.core.RequestObserver;
import pushbench.core.Validation;

/**
 * One WebSocket of GET /request on Tomcat 7's JSR-356 container (docs/protocol.md "WebSocket"): the
 * endpoint of that connection, and, once subscribed, the core's observer for it (one text frame per record,
 * written by the core's stream writer, never by the emit cycle).
 * <ul>
 * <li>the first message is the subscription, within the body deadline (else an error frame 408 and close
 *     1008, counted in /status bodies.late); nothing is sent before it and nothing acknowledges it;</li>
 * <li>refusals after the 101 are a text frame with the error body, then the close code RFC 6455 7.4.1
 *     means: 1008 a subscription refused or a second message, 1003 a binary message; Tomcat itself closes
 *     1009 a message over 16 KiB (the container's buffers are sized to it), 1007 text that is not UTF-8, 1002
 *     a broken frame, and answers pings;</li>
 * <li>the stream ends with the clear record's frame and close 1000 (clear) or 1001 (shutdown); a stream cut
 *     for not reading has its connection closed at once ({@link #abort}).</li>
 * </ul>
 * Frames to one session are sent one at a time ({@code sending}): the container refuses a text message
 * while another is being written.
 */
final class WebSocketStream extends Endpoint implements RequestObserver {
    private final Instrumentation inst;
    private final Closeable connection; // closed at once when the stream is cut; null if out of reach
    private final Object sending = new Object();
    private Session session; // guarded by this
    private ScheduledFuture<?> deadline; // guarded by this
    private boolean subscribed; // guarded by this: the first message came (or the deadline passed)
    private PushRequest request; // guarded by this
    private volatile String clearReason = "clear";

    WebSocketStream(Instrumentation inst, Closeable connection) {
        this.inst = inst;
        this.connection = connection;
    }

    @Override
    public void onOpen(Session opened, EndpointConfig config) {
        synchronized (this) {
            session = opened;
            long millis = inst.bodies().deadlineMillis();
            deadline = inst.later(this::late, millis);
        }
        opened.addMessageHandler(new MessageHandler.Whole<String>() {
            @Override
            public void onMessage(String text) {
                message(text);
            }
        });
        opened.addMessageHandler(new MessageHandler.Whole<ByteBuffer>() {
            @Override
            public void onMessage(ByteBuffer data) {
                if (first()) {
                    refuse(new BadInput(400, "the subscription is a text message of JSON"), CloseCodes.CANNOT_ACCEPT,
                            "binary message");
                } else {
                    secondMessage();
                }
            }
        });
    }

    /** A text message: the subscription, or a second message (refused). */
    private void message(String text) {
        if (!first()) {
            secondMessage();
            return;
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > BodyBuffer.LIMIT) {
            close(CloseCodes.TOO_BIG, "message over " + BodyBuffer.LIMIT + " bytes");
            return;
        }
        try {
            PushRequest opened = inst.open(Validation.wsSubscription(bytes), this);
            synchronized (this) {
                request = opened;
            }
            if (!session().isOpen()) {
                opened.abandon(); // the client left while it was being registered
            }
        } catch (BadInput e) {
            refuse(e, CloseCodes.VIOLATED_POLICY, "subscription refused");
        }
    }

    /** True for the first message (the subscription), which also ends the wait for it. */
    private synchronized boolean first() {
        if (subscribed) {
            return false;
        }
        subscribed = true;
        if (deadline != null) {
            deadline.cancel(false);
        }
        return true;
    }

    private void secondMessage() {
        PushRequest held;
        synchronized (this) {
            held = request;
        }
        if (held != null) {
            held.abandon();
        }
        refuse(new BadInput(400, "one subscription per connection: after it a client sends only ping, pong and close"),
                CloseCodes.VIOLATED_POLICY, "one subscription per connection");
    }

    /** The body deadline passed with no subscription: 408, counted late, close 1008. */
    private void late() {
        if (first()) {
            refuse(inst.bodies().lateSubscription(), CloseCodes.VIOLATED_POLICY, "subscription late");
        }
    }

    /** An error frame with the error body, then the close. */
    private void refuse(BadInput refusal, CloseCodes code, String reason) {
        try {
            write(Json.write(Records.error(refusal.status(), refusal.getMessage())));
        } catch (IOException e) {
            // the client is gone; the close below fails quietly too
        }
        close(code, reason);
    }

    private void close(CloseCodes code, String reason) {
        try {
            session().close(new CloseReason(code, reason));
        } catch (IOException | RuntimeException e) {
            // already closed
        }
    }

    private synchronized Session session() {
        return session;
    }

    @Override
    public void write(String text) throws IOException {
        synchronized (sending) {
            try {
                session().getBasicRemote().sendText(text);
            } catch (RuntimeException e) {
                throw new IOException("the WebSocket is closed", e);
            }
        }
    }

    @Override
    public void clearing(String reason) {
        clearReason = reason;
    }

    /** After the clear record: close 1001 (going away) at shutdown, 1000 (normal closure) at clear. */
    @Override
    public void complete() {
        String reason = clearReason;
        close("shutdown".equals(reason) ? CloseCodes.GOING_AWAY : CloseCodes.NORMAL_CLOSURE, reason);
    }

    @Override
    public void abort() {
        if (connection != null) {
            try {
                connection.close();
            } catch (IOException | RuntimeException e) {
                // already closed
            }
        }
    }

    @Override
    public void onClose(Session closed, CloseReason reason) {
        PushRequest held;
        synchronized (this) {
            subscribed = true;
            if (deadline != null) {
                deadline.cancel(false);
            }
            held = request;
        }
        if (held != null) {
            held.abandon();
        }
    }

    @Override
    public void onError(Session failed, Throwable cause) {
        inst.log().info("websocket: " + cause);
    }
}
