package pushbench.tomcat7;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.channels.SocketChannel;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.servlet.http.HttpServletRequest;

/**
 * Finds the socket behind a Tomcat 7 NIO request, so a held request's client can be checked for having
 * gone away.
 *
 * Why: Servlet 3.0 has no notification for a client that disconnects while an async request is idle, and
 * Tomcat 7 takes an async socket out of its poller, so a vanished poll client would stay in the request
 * pool until its timeout (and a comet client until the next event). Tomcat 6's CometProcessor and Node.js
 * both see the close at once. To keep the servers comparable, the Tomcat 7 handler peeks at idle held
 * sockets (see {@link AsyncRequestMonitor#probeClientGone()}).
 *
 * The path is Tomcat-internal (RequestFacade.request → Request.getCoyoteRequest() → coyote Request.hook,
 * the Http11NioProcessor → socketWrapper → NioChannel.getIOChannel()); if any step is missing (another
 * connector, another Tomcat) this returns null and the request is simply not probed.
 */
final class ClientProbe {
    private static final Logger LOG = Logger.getLogger("pushbench");
    private static volatile boolean warned;

    private ClientProbe() {
    }

    static SocketChannel channelOf(HttpServletRequest request) {
        try {
            Object connectorRequest = field(request, "request");
            Object coyoteRequest = connectorRequest.getClass().getMethod("getCoyoteRequest").invoke(connectorRequest);
            Object processor = field(coyoteRequest, "hook");
            Object wrapper = field(processor, "socketWrapper");
            Object channel = wrapper.getClass().getMethod("getSocket").invoke(wrapper);
            Method io = channel.getClass().getMethod("getIOChannel");
            Object socket = io.invoke(channel);
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

    private static Object field(Object target, String name) throws ReflectiveOperationException {
        for (Class<?> type = target.getClass(); type != null; type = type.getSuperclass()) {
            try {
                Field field = type.getDeclaredField(name);
                field.setAccessible(true);
                Object value = field.get(target);
                if (value == null) {
                    throw new NoSuchFieldException(name + " is null");
                }
                return value;
            } catch (NoSuchFieldException e) {
                // look in the superclass
            }
        }
        throw new NoSuchFieldException(name);
    }
}
