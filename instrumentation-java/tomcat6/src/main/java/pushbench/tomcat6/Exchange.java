package pushbench.tomcat6;

import java.io.IOException;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.servlet.http.HttpServletResponse;
import org.apache.catalina.CometEvent;
import pushbench.core.Answer;
import pushbench.core.Bodies;
import pushbench.core.BodyBuffer;
import pushbench.core.Endpoint;
import pushbench.core.HeldResponse;
import pushbench.core.LogManager;
import pushbench.core.PushRequest;
import pushbench.core.PushServlet;
import pushbench.core.PushSpec;

/**
 * One Comet connection's state across its events, and (through the core's {@link HeldResponse}, which
 * writes the records) the core's observer for it once it is held.
 *
 * Threads: the container calls event() on its threads; emitters, timers and other connections' container
 * threads (POST /event/clear) call write()/complete() on theirs, and the body deadline's timer answers a
 * late body on its own ({@link #fallBackAtDeadline}). Tomcat 6 recycles this connection's
 * Request, Response and Http11NioProcessor for the next connection as soon as its own handling of an
 * END/ERROR (or of our close) returns: CoyoteAdapter.event() recycles them in its finally block when
 * {@code error || response.isClosed() || !request.isComet()}, and Http11NioProtocol's handler puts the
 * processor back in its cache. Any Tomcat call made for this connection after that point lands on
 * whichever connection got those objects next (seen as a chunked answer body without headers on a fresh
 * connection). So:
 * <ul>
 * <li>The core's {@code lock} serializes every write with the container's END/ERROR, after which nothing is
 *     written, and with the close itself, after which nothing is written either ({@code finished}).</li>
 * <li>CometEvent.close() runs once. On this connection's own event thread it runs at once. From any other
 *     thread (a container thread busy with another connection, e.g. POST /event/clear, included) it runs
 *     either at the end of the event in progress (by that event's thread), or, when no event is in
 *     progress, on the calling thread while this connection's next event waits for it in
 *     {@link #enterEvent}. CometEventImpl.close() is {@code request.setComet(false);
 *     response.finishResponse(); request.cometClose()}: the moment setComet(false) or the final flush is
 *     done, the container may start ending the request (a client that got its whole answer hangs up), and
 *     that END must not reach the recycling code while the rest of close() is still running here.</li>
 * <li>A close also waits until the container thread that ran this connection's last event has finished that
 *     dispatch ({@link #awaitDispatchEnd}). Tomcat's code after our event() returns still acts on the
 *     request: a READ that made the request held is followed by CoyoteAdapter.service() checking
 *     request.isComet() and Http11NioProcessor.process() checking its own comet flag; a close from another
 *     thread that lands in between makes that thread finish and recycle the request itself, concurrently
 *     with close() (connections reset). Tomcat 6 gives a servlet no signal for the end of a dispatch, so
 *     the sign used is that thread starting another event or going idle in its pool. Two dispatches of one
 *     connection never overlap (NioEndpoint.SocketProcessor.run holds the NioChannel's monitor through the
 *     handler), so for a close on the connection's own event the wait returns at once.</li>
 * <li>A poll's final record is decided under the core request's monitor ({@link PushRequest}): the
 *     connector's TIMEOUT asks {@link PushRequest#expire} rather than its done flag, so a record the core's
 *     timer or an emitter is writing at that moment still goes out before the request is ended
 *     ({@link #containerTimeout}).</li>
 * <li>A poll that times out is answered and closed on this connection's own thread, in the connector's
 *     TIMEOUT event ({@link #containerTimeout}): the one close after which Tomcat 6 keeps the connection
 *     for the next request. A poll answered from any other thread says Connection: close.</li>
 * </ul>
 */
final class Exchange extends HeldResponse {
    /** Seconds an answered poll's client has to hang up before the server closes the connection. */
    static final long ANSWERED_POLL_CLOSE_SECONDS = 10;
    /**
     * How late the connector's Comet TIMEOUT may be before the core's own timer answers the poll instead
     * (from its thread, so with Connection: close). The connector scans for due timeouts only after a
     * select that waited selectorTimeout ms (servers/tc6/conf/server.xml sets 100) and found no socket
     * ready: while connections keep arriving the check starves, and this bounds the lateness.
     */
    static final long CONTAINER_TIMEOUT_GRACE_MILLIS = 200;
    /**
     * The fallback's tick: fallbacks fire together on multiples of it. Answered one by one, each at its
     * own time, they and the reconnections they bring (Connection: close) keep the selector busy, so the
     * connector's check keeps starving and the polls after them fall back too; in bursts they leave quiet
     * moments, and the connector's own timeouts take over again.
     */
    static final long FALLBACK_TICK_MILLIS = 250;
    /** The longest a TIMEOUT that came before the poll's duration was up waits for the rest of it. */
    private static final long EARLY_TIMEOUT_WAIT_LIMIT_MILLIS = 1000;
    private static ScheduledThreadPoolExecutor timers; // guarded by Exchange.class

    /** Events started per container thread: a change tells that thread's previous dispatch is over. */
    private static final Map<Thread, AtomicLong> EVENTS_STARTED = Collections.synchronizedMap(new WeakHashMap<>());
    /** Past this, a close stops waiting for the container's dispatch to end (a thread stuck elsewhere). */
    private static final long DISPATCH_END_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final CometEvent event;
    private final HttpServletResponse response;
    private final LogManager log;
    private final BodyBuffer body = new BodyBuffer();
    private Endpoint endpoint; // container threads only
    private int expected = -1;
    private boolean awaitingBody; // guarded by lock: from BEGIN until the body is complete or refused
    private long bodyStartNanos;
    private ScheduledFuture<?> bodyFallback; // guarded by lock: the core's 408 at the body deadline
    private boolean answeredByTimer; // guarded by lock: that 408 went out; the next event closes
    private boolean finished; // guarded by lock: close() was called, nothing more is written
    private boolean containerTimesOut; // guarded by lock: the connector's TIMEOUT ends this poll
    private int eventDepth; // guarded by this
    private Thread eventThread; // guarded by this: the container thread inside event() for this connection
    private boolean closed; // guarded by this: close() has been called
    private boolean closeDeferred; // guarded by this: the event in progress closes when it ends
    private boolean foreignClose; // guarded by this: another thread is inside CometEvent.close()
    private Thread lastEventThread; // guarded by this: the container thread that ran the last event
    private long lastEventNumber; // guarded by this: that thread's events started, as it left ours

    Exchange(CometEvent event, LogManager log) {
        super(event.getHttpServletResponse());
        this.event = event;
        this.response = event.getHttpServletResponse();
        this.log = log;
    }

    // ---- body, on container threads (and the core's timer at its deadline) ----

    void expectBody(Endpoint endpoint, int contentLength) {
        this.endpoint = endpoint;
        this.expected = contentLength;
        this.bodyStartNanos = System.nanoTime();
        synchronized (lock) {
            awaitingBody = true;
        }
    }

    private long bodyMillisLeft(Bodies bodies) {
        return bodies.deadlineMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - bodyStartNanos);
    }

    /**
     * A body still arriving in READ events (no thread waits for it): sets the Comet timeout to what is
     * left of the body deadline, at most the connector's own. The connector counts it from the last READ,
     * and each READ sets it again, so the TIMEOUT event comes at the deadline for a client that stalls and
     * for one that trickles alike.
     *
     * @return false if the deadline has already passed (the caller answers 408)
     */
    boolean awaitBodyWithin(Bodies bodies) {
        long left = bodyMillisLeft(bodies);
        if (left <= 0) {
            return false;
        }
        try {
            event.setTimeout(Bodies.waitMillis(left, bodies.connectorWaitMillis()));
        } catch (Exception e) { // UnsupportedOperationException where the connector has no comet timeouts
            log.info("could not set the comet timeout for a body: " + e);
        }
        return true;
    }

    Endpoint endpoint() {
        return endpoint;
    }

    boolean awaitingBody() {
        synchronized (lock) {
            return awaitingBody;
        }
    }

    /**
     * Ends the wait for the body, once: true for the one caller that ends it (its READ completed it, a
     * refusal, the container's end, or the core's timer), which then answers it; false for any other.
     */
    boolean endBody() {
        synchronized (lock) {
            if (!awaitingBody) {
                return false;
            }
            awaitingBody = false;
            if (bodyFallback != null) {
                bodyFallback.cancel(false);
            }
            return true;
        }
    }

    /**
     * A body still incomplete after a READ: the core's timer answers it 408 at its deadline, plus the
     * {@link #CONTAINER_TIMEOUT_GRACE_MILLIS} the connector's own TIMEOUT has to come first, unless a READ
     * or that TIMEOUT ended it. The connector looks for due timeouts only after its selector waited idle,
     * which it never does while other clients (trickling ones too) keep it busy; as for a poll, the timer
     * bounds how late a body's 408 can be.
     */
    void fallBackAtDeadline(Bodies bodies) {
        synchronized (lock) {
            if (bodyFallback == null && awaitingBody) {
                long delay = Math.max(0, bodyMillisLeft(bodies)) + CONTAINER_TIMEOUT_GRACE_MILLIS;
                bodyFallback = schedule(() -> answerLate(bodies), delay);
            }
        }
    }

    /**
     * The timer's 408, written as an answered poll is (see {@link #complete}): flushed with Connection:
     * close, and closed by the container thread of the client's next event (its hang-up, its next byte),
     * or after {@link #ANSWERED_POLL_CLOSE_SECONDS}; never once the container has ended or closed it.
     */
    private void answerLate(Bodies bodies) {
        synchronized (lock) {
            if (finished || ended() || !endBody()) {
                return;
            }
            answeredByTimer = true;
            try {
                response.setHeader("Connection", "close");
                PushServlet.send(response, bodies.late().toAnswer());
                response.flushBuffer();
            } catch (IOException | RuntimeException e) {
                log.info("a late body's 408 could not be written: " + e);
            }
        }
        schedule(this::closeIfStillOpen, TimeUnit.SECONDS.toMillis(ANSWERED_POLL_CLOSE_SECONDS));
    }

    boolean answeredByTimer() {
        synchronized (lock) {
            return answeredByTimer;
        }
    }

    BodyBuffer body() {
        return body;
    }

    int expected() {
        return expected;
    }

    boolean bodyComplete() {
        return expected >= 0 && body.size() >= expected;
    }

    // ---- answers of control endpoints, on container threads ----

    void answer(Answer answer) throws IOException {
        synchronized (lock) {
            // Closed in BEGIN or READ (status OPEN), Tomcat 6 ends the connection: the client must not reuse it.
            response.setHeader("Connection", "close");
            PushServlet.send(response, answer);
        }
        close();
    }

    // ---- a held request ----

    /**
     * Before registering. A stream (comet, SSE) gets its status and headers at once, and no connector timeout. A
     * poll gets the connector's Comet timeout set to its duration: a close inside that TIMEOUT event keeps
     * the connection open for the client's next poll, as on Tomcat 7, while a close from any other thread
     * ends it (CoyoteAdapter.event() counts a close that arrives with status OPEN as an error). The core's
     * timer stays as the fallback, {@link #CONTAINER_TIMEOUT_GRACE_MILLIS} later.
     */
    void hold(PushSpec spec) throws IOException {
        begin(spec, event.getHttpServletRequest());
        int timeout = spec.isStream() ? Integer.MAX_VALUE : (int) Math.min(spec.duration(), Integer.MAX_VALUE);
        try {
            event.setTimeout(timeout);
            synchronized (lock) {
                containerTimesOut = spec.isPoll();
            }
        } catch (Exception e) { // UnsupportedOperationException where the connector has no comet timeouts
            log.info("could not set the comet timeout: " + e);
        }
    }

    @Override
    public long timeoutGraceMillis() {
        synchronized (lock) {
            return containerTimesOut ? CONTAINER_TIMEOUT_GRACE_MILLIS : 0;
        }
    }

    @Override
    public long timeoutTickMillis() {
        return FALLBACK_TICK_MILLIS;
    }

    /**
     * The connector's Comet TIMEOUT, on this connection's event thread. A held stream ignores it. A
     * held poll gets its timeout record here (after the rest of its duration, if the connector counted
     * from a little before the poll was opened), and the close that follows, still inside this event,
     * keeps the connection.
     *
     * The poll's answer is decided by {@link PushRequest#expire}, under the request's monitor: a poll the
     * core's timer or an emitter completed a moment earlier is done before its record is written (the
     * write follows under that monitor), so its done flag alone must not end the request here, or the
     * record would find the request ended and the client an empty answer. expire() waits for that write.
     *
     * @return true if the request is taken care of; false if it is no longer held, and is to be ended
     *     (any final record is out by then)
     */
    boolean containerTimeout() {
        PushRequest request = request();
        if (request == null) {
            return false;
        }
        if (spec().isStream()) {
            return request.isOpen();
        }
        long early = Math.min(request.remainingMillis(), EARLY_TIMEOUT_WAIT_LIMIT_MILLIS);
        if (early > 0 && request.isOpen()) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(early));
        }
        return request.expire();
    }

    /** A stream always ends its connection; a poll answered from another thread than its own event's does. */
    @Override
    protected boolean closesConnection() {
        return spec().isStream() || !onEventThread();
    }

    @Override
    protected boolean writable() {
        return !finished;
    }

    @Override
    public void complete() {
        boolean answeredPoll = pollAnswered();
        synchronized (this) {
            if (eventThread == Thread.currentThread()) {
                answeredPoll = false; // on this connection's own event (server shutdown): close at once
            }
        }
        if (!answeredPoll) {
            close();
            return;
        }
        // The poll's whole answer is out (Content-Length, Connection: close): its client hangs up, and
        // the END or READ that brings is where the container thread closes the request. Closing here as
        // well would race that hang-up inside Tomcat: CometEventImpl.close() ends with request.cometClose(),
        // which, outside an event, re-registers the socket with the poller (Poller.cometInterest) even when
        // the hang-up has just been dispatched; the socket is then dispatched twice, and the second dispatch
        // acts on whatever connection has the recycled NioChannel by then. A client that keeps the
        // connection anyway is closed from here after a while, long after any such dispatch.
        schedule(this::closeIfStillOpen, TimeUnit.SECONDS.toMillis(ANSWERED_POLL_CLOSE_SECONDS));
    }

    private void closeIfStillOpen() {
        if (!ended()) {
            close();
        }
    }

    /** END with SERVER_SHUTDOWN / WEBAPP_RELOAD: the held request gets its shutdown clear record. */
    void shutdown() {
        PushRequest request = request();
        if (request != null) {
            request.shutdown();
        }
        containerEnded();
    }

    // ---- closing exactly once ----

    private synchronized boolean onEventThread() {
        return eventThread == Thread.currentThread();
    }

    /** The container starts an event for this connection; waits while another thread is closing it. */
    synchronized void enterEvent() {
        boolean interrupted = false;
        while (foreignClose) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true; // the container's thread: finish the wait, keep the flag
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        eventDepth++;
        eventThread = Thread.currentThread();
        EVENTS_STARTED.computeIfAbsent(eventThread, t -> new AtomicLong()).incrementAndGet();
    }

    void leaveEvent() {
        boolean closeNow;
        synchronized (this) {
            eventDepth--;
            if (eventDepth == 0) {
                lastEventThread = eventThread;
                lastEventNumber = eventsStarted(eventThread);
                eventThread = null;
            }
            closeNow = eventDepth == 0 && closeDeferred;
            if (closeNow) {
                closeDeferred = false;
            }
        }
        if (closeNow) {
            doClose(); // still inside event(): Tomcat ends the request when this event returns
        }
    }

    /** Ends the Comet request once; see the class comment for which thread does it, and when. */
    void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (eventDepth > 0 && eventThread != Thread.currentThread()) {
                closeDeferred = true;
                return;
            }
            foreignClose = eventDepth == 0;
        }
        try {
            awaitDispatchEnd();
            doClose();
        } finally {
            synchronized (this) {
                if (foreignClose) {
                    foreignClose = false;
                    notifyAll();
                }
            }
        }
    }

    private static synchronized ScheduledFuture<?> schedule(Runnable task, long millis) {
        if (timers == null) {
            timers = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, "pushbench-tc6-close");
                thread.setDaemon(true);
                return thread;
            });
            timers.setRemoveOnCancelPolicy(true); // a body that completes cancels its fallback at once
        }
        return timers.schedule(task, millis, TimeUnit.MILLISECONDS);
    }

    /** At servlet destroy: drops pending fallbacks (the container ends every request itself). */
    static synchronized void stopTimers() {
        if (timers != null) {
            timers.shutdownNow();
            timers = null;
        }
    }

    private static long eventsStarted(Thread thread) {
        AtomicLong count = EVENTS_STARTED.get(thread);
        return count == null ? 0 : count.get();
    }

    /**
     * Waits until the container thread that ran this connection's last event is done with that dispatch:
     * it has started another event, or it waits for work in its pool. Inside the dispatch, after our
     * event(), Tomcat's code neither waits nor sleeps, so WAITING means it is back in the pool.
     */
    private void awaitDispatchEnd() {
        Thread thread;
        long number;
        synchronized (this) {
            thread = lastEventThread;
            number = lastEventNumber;
        }
        if (thread == null || thread == Thread.currentThread()) {
            return;
        }
        long deadline = System.nanoTime() + DISPATCH_END_LIMIT_NANOS;
        while (eventsStarted(thread) == number && System.nanoTime() < deadline) {
            Thread.State state = thread.getState();
            if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING
                    || state == Thread.State.TERMINATED) {
                return;
            }
            LockSupport.parkNanos(100_000);
        }
    }

    private void doClose() {
        synchronized (lock) {
            finished = true; // a write still in progress has finished; none starts after this
            try {
                event.close();
            } catch (IOException | RuntimeException e) {
                log.info("comet close: " + e);
            }
        }
    }
}
