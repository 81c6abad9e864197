package pushbench.tomcat7;

import java.io.IOException;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.servlet.http.HttpServletRequest;
import pushbench.core.ReadWait;
import pushbench.core.TomcatReach;

/**
 * Reaches the socket behind a Tomcat 7 request (core's {@link TomcatReach} path to the connection's
 * processor, then its socketWrapper): the NIO channel, so a held request's client can be checked for
 * having gone away, and the read wait of its body.
 *
 * Why the channel: Servlet 3.0 has no notification for a client that disconnects while an async request
 * is idle, and Tomcat 7 takes an async socket out of its poller, so a vanished poll client would stay in
 * the request pool until its timeout (and a comet client until the next event). Tomcat 6's CometProcessor
 * and Node.js both see the close at once. To keep the servers comparable, the Tomcat 7 handler peeks at
 * idle held sockets (see {@link AsyncRequestMonitor#probeClientGone()}).
 *
 * Why the read wait: Servlet 3.0 has no non-blocking read, so a body is read on a container thread, and
 * each blocking read waits as long as the socket's timeout says (NIO: the socketWrapper's timeout; the
 * blocking connector: the socket's SO_TIMEOUT). The core bounds it by the body deadline through it. A
 * refused body's rest is left unread with the connector's DISABLE_SWALLOW_INPUT action (the connection
 * closes after the answer), rather than by a read that times out at once: on NIO such a timed-out
 * blocking read races Tomcat 7's BlockPoller (a NullPointerException it logs as SEVERE).
 *
 * If any step is missing (another connector, another Tomcat) these return null: the request is simply
 * not probed, and its body reads wait as the connector says.
 */
final class ClientProbe {
    private static final Logger LOG = Logger.getLogger("pushbench");
    private static volatile boolean warned;

    private static final TomcatReach.Step SOCKET_WRAPPER = TomcatReach.field("socketWrapper");
    private static final TomcatReach.Step GET_SOCKET = TomcatReach.method("getSocket");
    private static final TomcatReach.Step GET_IO_CHANNEL = TomcatReach.method("getIOChannel");
    private static final TomcatReach.Step GET_TIMEOUT = TomcatReach.method("getTimeout");
    private static final TomcatReach.Step SET_TIMEOUT = TomcatReach.method("setTimeout", long.class);

    private ClientProbe() {
    }

    static SocketChannel channelOf(HttpServletRequest request) {
        try {
            Object socket = GET_IO_CHANNEL.from(GET_SOCKET.from(wrapperOf(request)));
            return socket instanceof SocketChannel ? (SocketChannel) socket : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            if (!warned) {
                warned = true;
                LOG.log(Level.WARNING, "cannot reach the NIO socket of async requests; vanished clients are "
                        + "noticed only on the next write: " + e);
            }
            return null;
        }
    }

    /** The read wait of the request's socket: SO_TIMEOUT on the blocking connector, the wrapper's timeout on NIO. */
    static ReadWait readWaitOf(HttpServletRequest request) {
        try {
            Object wrapper = wrapperOf(request);
            Object socket = GET_SOCKET.from(wrapper);
            GET_TIMEOUT.call(wrapper); // the wrapper has both methods, or this request gets no handle
            ReadWait wait = socket instanceof Socket ? ReadWait.of((Socket) socket) : new WrapperWait(wrapper);
            return new RestUnread(wait, TomcatReach.coyoteRequestOf(request));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static Object wrapperOf(HttpServletRequest request) throws ReflectiveOperationException {
        return SOCKET_WRAPPER.from(TomcatReach.processorOf(request));
    }

    /** A read wait whose refused body's rest is left unread by the connector's DISABLE_SWALLOW_INPUT action. */
    private static final class RestUnread implements ReadWait {
        private final ReadWait wait;
        private final Object coyoteRequest;

        RestUnread(ReadWait wait, Object coyoteRequest) {
            this.wait = wait;
            this.coyoteRequest = coyoteRequest;
        }

        @Override
        public int current() throws IOException {
            return wait.current();
        }

        @Override
        public void set(int millis) throws IOException {
            wait.set(millis);
        }

        @Override
        public void leaveRestUnread() throws IOException {
            try {
                Class<?> codes = coyoteRequest.getClass().getClassLoader().loadClass("org.apache.coyote.ActionCode");
                Object disable = codes.getField("DISABLE_SWALLOW_INPUT").get(null);
                coyoteRequest.getClass().getMethod("action", codes, Object.class).invoke(coyoteRequest, disable, null);
            } catch (ReflectiveOperationException | RuntimeException e) {
                wait.leaveRestUnread();
            }
        }
    }

    /** NIO: the socketWrapper's timeout, which each blocking read of the request's body waits at most. */
    private static final class WrapperWait implements ReadWait {
        private final Object wrapper;

        WrapperWait(Object wrapper) {
            this.wrapper = wrapper;
        }

        @Override
        public int current() throws IOException {
            try {
                return (int) Math.min(Integer.MAX_VALUE, (Long) GET_TIMEOUT.call(wrapper));
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IOException("socket timeout not readable", e);
            }
        }

        @Override
        public void set(int millis) throws IOException {
            try {
                SET_TIMEOUT.call(wrapper, (long) millis);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IOException("socket timeout not settable", e);
            }
        }
    }
}
