package pushbench.tomcat7;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.servlet.AsyncContext;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import pushbench.core.PushServlet;
import pushbench.core.PushSpec;
import pushbench.core.ReadWait;

/**
 * The Tomcat 7 request handler: one Servlet 3.0 async servlet (async-supported in web.xml) mapped to /*.
 * Routing, bodies and plain endpoints are the core's {@link PushServlet}; a comet stream, poll or SSE stream
 * to hold is put into async mode here and handed to the core through an {@link AsyncRequestMonitor}; a
 * WebSocket upgrade the core's checks took goes to the JSR-356 container ({@link WebSocketTransport}). Bodies are read on
 * the container thread (Servlet 3.0 has no non-blocking read), each read bounded by the body deadline
 * through the socket's read wait ({@link ClientProbe#readWaitOf}).
 */
public final class AsyncPushServlet extends PushServlet {
    private static final long serialVersionUID = 1L;
    /**
     * The core times polls out itself; the container's timeout is only a safety net this long after the
     * poll's own duration, and a stream (comet, SSE) has none at all (0).
     */
    static final long CONTAINER_TIMEOUT_MARGIN_MS = 60_000;

    /**
     * How often idle held requests are checked for a vanished client (see ClientProbe): one non-blocking
     * 1-byte read per idle request per period, a small cost even at 20,000 held requests.
     */
    static final long PROBE_PERIOD_MS = 1000;

    private final transient Set<AsyncRequestMonitor> held = ConcurrentHashMap.newKeySet();
    private transient ScheduledExecutorService prober;
    private transient WebSocketTransport webSockets; // null where the webapp has no WebSocket container

    @Override
    public void init() throws ServletException {
        super.init();
        webSockets = WebSocketTransport.of(getServletContext(), instrumentation());
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
            instrumentation().log().fault("client probe failed", e); // keep the periodic task alive
        }
    }

    @Override
    public void destroy() {
        if (prober != null) {
            prober.shutdownNow();
        }
        super.destroy();
    }

    @Override
    protected boolean speaksWebSocket() {
        return webSockets != null;
    }

    @Override
    protected void upgrade(HttpServletRequest request, HttpServletResponse response) throws IOException {
        webSockets.upgrade(request, response);
    }

    @Override
    protected ReadWait readWaitOf(HttpServletRequest request) {
        return ClientProbe.readWaitOf(request);
    }

    @Override
    protected void hold(HttpServletRequest request, HttpServletResponse response, PushSpec spec) throws IOException {
        AsyncContext async = request.startAsync(request, response);
        AsyncRequestMonitor monitor = new AsyncRequestMonitor(async, response, instrumentation().log());
        async.addListener(monitor);
        async.setTimeout(spec.isStream() ? 0 : spec.duration() + CONTAINER_TIMEOUT_MARGIN_MS);
        monitor.begin(spec, request);
        monitor.probeWith(ClientProbe.channelOf(request));
        monitor.attach(instrumentation().open(spec, monitor));
        if (prober != null) {
            held.add(monitor);
        }
    }
}
