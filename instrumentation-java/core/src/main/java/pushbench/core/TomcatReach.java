package pushbench.core;

import java.io.Closeable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.util.Optional;
import javax.servlet.http.HttpServletRequest;

/**
 * Reaches Tomcat-internal objects behind a servlet request by reflection, for what Servlet 2.5/3.0 give no
 * API for: the request's socket (a vanished client's probe on Tomcat 7, the read wait of a request body
 * on every Tomcat). The path to the connection's processor is the same on Tomcat 6 and 7:
 * RequestFacade.request → Request.getCoyoteRequest() → getResponse() → getHook(). (The coyote Request's
 * own hook is filled lazily from its response's on Tomcat 7.0.109, and is null on a recycled processor
 * until an action runs; the response's is set by the processor itself.) A step that is missing
 * (another container or version) throws, and the caller falls back to what the servlet API gives.
 *
 * Each step's Field or Method is looked up once per class: paths are walked for every held request and
 * every body read, and a lookup by name costs far more than the access.
 */
public final class TomcatReach {
    private static final Step REQUEST = field("request");
    private static final Step COYOTE_REQUEST = method("getCoyoteRequest");
    private static final Step COYOTE_RESPONSE = method("getResponse");
    private static final Step HOOK = method("getHook");
    private static final Step SOCKET_WRAPPER = field("socketWrapper");
    private static final Step SOCKET = field("socket");
    private static final Step GET_SOCKET = method("getSocket");
    private static final Step GET_IO_CHANNEL = method("getIOChannel");

    private TomcatReach() {
    }

    /** The connector's own request object (org.apache.coyote.Request) behind this request. */
    public static Object coyoteRequestOf(HttpServletRequest request) throws ReflectiveOperationException {
        return COYOTE_REQUEST.from(REQUEST.from(request));
    }

    /** The connection's processor (Http11Processor, Http11NioProcessor) serving this request. */
    public static Object processorOf(HttpServletRequest request) throws ReflectiveOperationException {
        return HOOK.from(COYOTE_RESPONSE.from(coyoteRequestOf(request)));
    }

    /**
     * The connection behind this request, to close at once (a stream cut for not reading): the blocking
     * connectors' java.net.Socket, the NIO connectors' SocketChannel. Tomcat 7: the processor's
     * socketWrapper.getSocket(); Tomcat 6: the processor's socket; a NioChannel gives its getIOChannel().
     * Null where a step is missing.
     */
    public static Closeable connectionOf(HttpServletRequest request) {
        try {
            Object processor = processorOf(request);
            Object socket;
            try {
                socket = GET_SOCKET.from(SOCKET_WRAPPER.from(processor));
            } catch (ReflectiveOperationException e) {
                socket = SOCKET.from(processor);
            }
            if (!(socket instanceof Socket) && !(socket instanceof SocketChannel)) {
                socket = GET_IO_CHANNEL.from(socket);
            }
            return socket instanceof Closeable ? (Closeable) socket : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** One step of a path: a field (declared by the class or a superclass) or a public no-argument method. */
    public static final class Step {
        private final String name;
        private final ClassValue<Optional<Field>> fields;
        private final ClassValue<Optional<Method>> methods;

        private Step(String name, ClassValue<Optional<Field>> fields, ClassValue<Optional<Method>> methods) {
            this.name = name;
            this.fields = fields;
            this.methods = methods;
        }

        /** The step's value on {@code target}; throws if the step is missing or its value is null. */
        public Object from(Object target) throws ReflectiveOperationException {
            Object value = fields != null
                    ? fields.get(target.getClass()).orElseThrow(() -> missing(target)).get(target)
                    : call(target);
            if (value == null) {
                throw new NoSuchFieldException(name + " is null on " + target.getClass().getName());
            }
            return value;
        }

        /** A method step called on {@code target} with these arguments; its result (null for void). */
        public Object call(Object target, Object... arguments) throws ReflectiveOperationException {
            Method method = methods.get(target.getClass()).orElseThrow(() -> missing(target));
            return method.invoke(target, arguments);
        }

        private NoSuchFieldException missing(Object target) {
            return new NoSuchFieldException(name + " on " + target.getClass().getName());
        }
    }

    /** The field of that name declared by a class or its nearest superclass, made accessible. */
    public static Step field(String name) {
        return new Step(name, new ClassValue<Optional<Field>>() {
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
        }, null);
    }

    /** The public method of that name and parameter types (none: a getter). */
    public static Step method(String name, Class<?>... parameters) {
        return new Step(name, null, new ClassValue<Optional<Method>>() {
            @Override
            protected Optional<Method> computeValue(Class<?> type) {
                try {
                    return Optional.of(type.getMethod(name, parameters));
                } catch (NoSuchMethodException | RuntimeException e) {
                    return Optional.empty();
                }
            }
        });
    }
}
