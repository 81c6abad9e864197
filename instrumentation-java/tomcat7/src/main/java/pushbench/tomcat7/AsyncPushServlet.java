package pushbench.tomcat7;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.servlet.AsyncContext;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import pushbench.core.Answer;
import pushbench.core.BadInput;
import pushbench.core.BodyBuffer;
import pushbench.core.Endpoint;
import pushbench.core.Instrumentation;
import pushbench.core.PushSpec;

/**
 * The Tomcat 7 request handler: one Servlet 3.0 async servlet (async-supported in web.xml) mapped to /*.
 * Plain endpoints are answered synchronously; POST /request is put into async mode and handed to the
 * shared request manager through an {@link AsyncRequestMonitor}.
 */
public final class AsyncPushServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    static final String NDJSON = "application/x-ndjson";
    /**
     * The core times polls out itself; the container's timeout is only a safety net this long after the
     * poll's own duration, and a comet stream has none at all (0).
     */
    static final long CONTAINER_TIMEOUT_MARGIN_MS = 60_000;

    /**
     * How often idle held requests are checked for a vanished client (see ClientProbe): one non-blocking
     * 1-byte read per idle request per period, a small cost even at 20,000 held requests.
     */
    static final long PROBE_PERIOD_MS = 1000;

    private transient Instrumentation inst;
    private final transient Set<AsyncRequestMonitor> held = ConcurrentHashMap.newKeySet();
    private transient ScheduledExecutorService prober;

    @Override
    public void init() throws ServletException {
        inst = new Instrumentation();
        prober = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "pushbench-client-probe");
            thread.setDaemon(true);
            thread.setContextClassLoader(AsyncPushServlet.class.getClassLoader().getParent()); // see Instrumentation

            return thread;
        });
        prober.scheduleWithFixedDelay(this::probeHeld, PROBE_PERIOD_MS, PROBE_PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    private void probeHeld() {
        try {
            for (AsyncRequestMonitor monitor : held) {
                if (monitor.isOver()) {
                    held.remove(monitor);
                } else if (monitor.probeClientGone()) {
                    held.remove(monitor);
                    monitor.clientGone();
                }
            }
        } catch (RuntimeException e) {
            inst.log().fault("client probe failed", e); // keep the periodic task alive
        }
    }

    /** Used by tests to drive the servlet without a container. */
    void init(Instrumentation instrumentation) {
        inst = instrumentation;
    }

    Instrumentation instrumentation() {
        return inst;
    }

    @Override
    public void destroy() {
        if (prober != null) {
            prober.shutdownNow();
        }
        inst.shutdown();
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        Endpoint.Route route = Endpoint.route(request.getMethod(), path);
        if (route.rejection != null) {
            send(response, route.rejection);
            return;
        }
        Endpoint endpoint = route.endpoint;
        byte[] body = new byte[0];
        if (endpoint.hasBody()) {
            try {
                body = readBody(request);
            } catch (SocketTimeoutException e) {
                // A body that stops coming: the connector's read timeout (connectionTimeout) ends the wait.
                response.setHeader("Connection", "close");
                send(response, BodyBuffer.timeoutError().toAnswer());
                return;
            } catch (BadInput e) {
                response.setHeader("Connection", "close"); // the unread rest of the body is not worth draining
                send(response, e.toAnswer());
                return;
            }
        }
        if (endpoint == Endpoint.REQUEST) {
            startPush(request, response, body);
            return;
        }
        String client = endpoint == Endpoint.TIMESTAMP ? request.getParameter("client") : null;
        send(response, inst.answer(endpoint, client, body));
    }

    private void startPush(HttpServletRequest request, HttpServletResponse response, byte[] body) throws IOException {
        PushSpec spec;
        try {
            spec = inst.pushSpec(body);
        } catch (BadInput e) {
            send(response, e.toAnswer());
            return;
        }
        if (spec.isPull()) {
            send(response, inst.requests().pull(spec));
            return;
        }
        AsyncContext async = request.startAsync(request, response);
        AsyncRequestMonitor monitor = new AsyncRequestMonitor(async, response, spec, inst.log());
        async.addListener(monitor);
        async.setTimeout(spec.isComet() ? 0 : spec.duration() + CONTAINER_TIMEOUT_MARGIN_MS);
        if (spec.isComet()) {
            monitor.beginStream();
        }
        monitor.probeWith(ClientProbe.channelOf(request));
        monitor.attach(inst.open(spec, monitor));
        if (prober != null) {
            held.add(monitor);
        }
    }

    /** Reads the whole body, refusing more than 16 KiB (413) before or while reading. */
    static byte[] readBody(HttpServletRequest request) throws IOException, BadInput {
        if (request.getContentLength() > BodyBuffer.LIMIT) {
            throw BodyBuffer.tooLargeError();
        }
        BodyBuffer buffer = new BodyBuffer();
        byte[] chunk = BodyBuffer.chunkFor(request.getContentLength());
        InputStream in = request.getInputStream();
        for (int n = in.read(chunk); n >= 0; n = in.read(chunk)) {
            if (!buffer.append(chunk, 0, n)) {
                throw BodyBuffer.tooLargeError();
            }
        }
        return buffer.toByteArray();
    }

    static void send(HttpServletResponse response, Answer answer) throws IOException {
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
