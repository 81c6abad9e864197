package pushbench.core;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The study's request manager: the global request pool, the counts behind connections.start/finish, and
 * the poll timeouts. Timeouts are scheduled here, so every handler times polls out the same way (and the
 * request's lock makes the timeout and an event race-free); a handler may ask for a grace and time its
 * polls out with its container's own timeout first ({@link RequestObserver#timeoutGraceMillis()}).
 */
public final class RequestManager {
    private final ConcurrentHashMap<Long, PushRequest> pool = new ConcurrentHashMap<>();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger comet = new AtomicInteger();
    private final AtomicInteger poll = new AtomicInteger();
    private final AtomicLong ids = new AtomicLong();
    private final Subscriptions subscriptions;
    private final ScheduledExecutorService timers;
    private final Clock clock;
    private final LogManager log;
    private volatile boolean closed;

    RequestManager(Subscriptions subscriptions, ScheduledExecutorService timers, Clock clock, LogManager log) {
        this.subscriptions = subscriptions;
        this.timers = timers;
        this.clock = clock;
        this.log = log;
    }

    /**
     * Registers a request: into the pool, onto each event's subscription list, and (poll) onto the timer.
     * All under the request's lock, so no event, timeout or clear can complete it half-registered.
     */
    public PushRequest open(PushSpec spec, RequestObserver observer) {
        PushRequest request = new PushRequest(ids.incrementAndGet(), spec, clock.millis(), observer, this);
        boolean rejected = false;
        synchronized (request) {
            pool.put(request.id(), request);
            int start = open.incrementAndGet();
            (spec.isComet() ? comet : poll).incrementAndGet();
            for (String name : spec.subscriptions()) {
                subscriptions.of(name).add(request);
            }
            ScheduledFuture<?> timeout = null;
            if (!spec.isComet()) {
                try {
                    long delay = fallbackDelay(request, observer);
                    timeout = timers.schedule(request::expire, delay, TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException e) {
                    rejected = true;
                }
            }
            request.registered(start, timeout);
        }
        if (log.enabled()) {
            log.info("request " + request.id() + " received: " + Json.write(spec.echo()));
        }
        if (closed || rejected) {
            request.clear("shutdown");
        }
        return request;
    }

    /**
     * Answers a pull at once (docs/protocol.md "Pull"): every kept cycle of its names after its cursor, and
     * the cursor to send next. A pull is never held and never in the pool; it counts itself in the open counts.
     */
    public Answer pull(PushSpec spec) {
        long created = clock.millis();
        JsonArray events = new JsonArray();
        JsonObject cursor = new JsonObject();
        Map<String, Long> given = spec.cursor();
        int skipped = 0;
        long sent = clock.millis();
        for (String name : spec.subscriptions()) {
            skipped += subscriptions.of(name).history().answer(name, given == null ? null : given.get(name), sent,
                    events, cursor);
        }
        JsonObject pull = new JsonObject();
        pull.add("events", events);
        pull.add("cursor", cursor);
        pull.addProperty("skipped", skipped);
        JsonObject response = new JsonObject();
        response.add("pull", pull);
        int count = open.get() + 1;
        if (log.enabled()) {
            log.info("pull answered: " + events.size() + " events, cursor " + Json.write(cursor));
        }
        return Answer.ok(Records.envelope(spec.echo(), created, response, sent, count, count));
    }

    /**
     * When the core's timer expires a poll, counted from now: at its duration, or, for a handler whose
     * container times polls out first, at the first tick at or after its duration plus the grace.
     */
    private long fallbackDelay(PushRequest request, RequestObserver observer) {
        long grace = Math.max(0, observer.timeoutGraceMillis());
        if (grace == 0) {
            return request.spec().duration();
        }
        long due = request.created() + request.spec().duration() + grace;
        long tick = observer.timeoutTickMillis();
        if (tick > 0) {
            due = Math.floorDiv(due + tick - 1, tick) * tick;
        }
        return due - clock.millis();
    }

    /** Called exactly once per request, by whoever completed it. */
    void completed(PushRequest request) {
        if (pool.remove(request.id()) == null) {
            return;
        }
        ScheduledFuture<?> timeout = request.timeout();
        if (timeout != null) {
            timeout.cancel(false);
        }
        for (String name : request.spec().subscriptions()) {
            subscriptions.of(name).remove(request);
        }
        (request.spec().isComet() ? comet : poll).decrementAndGet();
        open.decrementAndGet();
    }

    /** Completes every open request with a clear record; returns how many this call completed. */
    public int clearAll(String reason) {
        List<PushRequest> all = new ArrayList<>(pool.values());
        all.sort(Comparator.comparingLong(PushRequest::id));
        int cleared = 0;
        for (PushRequest request : all) {
            if (request.clear(reason)) {
                cleared++;
            }
        }
        return cleared;
    }

    /** Server stop: every open request gets a clear record with reason "shutdown"; later ones too. */
    public int shutdown() {
        closed = true;
        return clearAll("shutdown");
    }

    public int openCount() {
        return open.get();
    }

    public int cometCount() {
        return comet.get();
    }

    public int pollCount() {
        return poll.get();
    }

    Clock clock() {
        return clock;
    }

    LogManager log() {
        return log;
    }
}
