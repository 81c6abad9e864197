package pushbench.tomcat7;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.channels.SocketChannel;
import java.util.Optional;
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

    // Each step's Field or Method, looked up once per class: the path is walked for every held request
    // (1,500 a second in the long-poll headline), and a lookup by name costs far more than the access.
    private static final ClassValue<Optional<Field>> REQUEST = fieldNamed("request");
    private static final ClassValue<Optional<Field>> HOOK = fieldNamed("hook");
    private static final ClassValue<Optional<Field>> SOCKET_WRAPPER = fieldNamed("socketWrapper");
    private static final ClassValue<Optional<Method>> GET_COYOTE_REQUEST = methodNamed("getCoyoteRequest");
    private static final ClassValue<Optional<Method>> GET_SOCKET = methodNamed("getSocket");
    private static final ClassValue<Optional<Method>> GET_IO_CHANNEL = methodNamed("getIOChannel");

    private ClientProbe() {
    }

    static SocketChannel channelOf(HttpServletRequest request) {
        try {
            Object connectorRequest = field(REQUEST, request);
            Object coyoteRequest = call(GET_COYOTE_REQUEST, connectorRequest);
            Object processor = field(HOOK, coyoteRequest);
            Object wrapper = field(SOCKET_WRAPPER, processor);
            Object channel = call(GET_SOCKET, wrapper);
            Object socket = call(GET_IO_CHANNEL, channel);
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

    private static Object field(ClassValue<Optional<Field>> step, Object target) throws ReflectiveOperationException {
        Field field = step.get(target.getClass()).orElseThrow(() -> new NoSuchFieldException(step + " on " + target.getClass()));
        return nonNull(field.get(target), field.getName());
    }

    private static Object call(ClassValue<Optional<Method>> step, Object target) throws ReflectiveOperationException {
        Method method = step.get(target.getClass()).orElseThrow(() -> new NoSuchMethodException(step + " on " + target.getClass()));
        return nonNull(method.invoke(target), method.getName());
    }

    private static Object nonNull(Object value, String name) throws NoSuchFieldException {
        if (value == null) {
            throw new NoSuchFieldException(name + " is null");
        }
        return value;
    }

    /** The field of that name declared by a class or its nearest superclass, made accessible. */
    private static ClassValue<Optional<Field>> fieldNamed(String name) {
        return new ClassValue<Optional<Field>>() {
            @Override
            protected Optional<Field> computeValue(Class<?> type) {
                for (Class<?> t = type; t != null; t = t.getSuperclass()) {
                    try {
                        Field field = t.getDeclaredField(name);
                        field.setAccessible(true);
                        return Optional.of(field);
                    } catch (NoSuchFieldException e) {
                        // look in the superclass
                    } catch (RuntimeException e) {
                        return Optional.empty(); // not accessible (a module boundary)
                    }
                }
                return Optional.empty();
            }

            @Override
            public String toString() {
                return "field " + name;
            }
        };
    }

    /** The public no-argument method of that name. */
    private static ClassValue<Optional<Method>> methodNamed(String name) {
        return new ClassValue<Optional<Method>>() {
            @Override
            protected Optional<Method> computeValue(Class<?> type) {
                try {
                    return Optional.of(type.getMethod(name));
                } catch (NoSuchMethodException e) {
                    return Optional.empty();
                }
            }

            @Override
            public String toString() {
                return "method " + name + "()";
            }
        };
    }
}
