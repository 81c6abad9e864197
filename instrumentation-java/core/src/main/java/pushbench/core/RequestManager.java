package pushbench.core;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
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
 * The study's request manager: the global request pool, the counts behind connections.start/finish (and
 * /status's per type), and the poll timeouts. Timeouts are scheduled here, so every handler times polls out
 * the same way (and the request's lock makes the timeout and an event race-free); a handler may ask for a
 * grace and time its polls out with its container's own timeout first
 * ({@link RequestObserver#timeoutGraceMillis()}). An SSE or WebSocket stream is written through its own
 * queue ({@link Outbox}) and gets what it missed when it resumes ({@link PushRequest#joined}).
 */
public final class RequestManager {
    private final ConcurrentHashMap<Long, PushRequest> pool = new ConcurrentHashMap<>();
    private final AtomicInteger open = new AtomicInteger();
    private final Map<PushSpec.Type, AtomicInteger> byType = new EnumMap<>(PushSpec.Type.class);
    private final AtomicLong ids = new AtomicLong();
    private final Subscriptions subscriptions;
    private final ScheduledExecutorService timers;
    private final Streams streams;
    private final Clock clock;
    private final LogManager log;
    private volatile boolean closed;

    RequestManager(Subscriptions subscriptions, ScheduledExecutorService timers, Streams streams, Clock clock, LogManager log) {
        this.subscriptions = subscriptions;
        this.timers = timers;
        this.streams = streams;
        this.clock = clock;
        this.log = log;
        for (PushSpec.Type type : PushSpec.Type.values()) {
            byType.put(type, new AtomicInteger());
        }
    }

    /**
     * Registers a request: into the pool, onto each event's subscription list, and (poll) onto the timer;
     * a stream that resumes gets what it missed before any live record. All under the request's lock, so
     * no event, timeout or clear can complete it half-registered. Its {@code timings.created} is stamped
     * once it is on every list, not before: a cycle that starts between a stamp taken first and the join
     * would miss a request that the stamp says was there (a thread descheduled or a JVM stop in between).
     */
    public PushRequest open(PushSpec spec, RequestObserver observer) {
        RequestObserver writer = spec.isQueued() ? streams.outbox(observer) : observer;
        PushRequest request = new PushRequest(ids.incrementAndGet(), spec, writer, this);
        boolean rejected = false;
        boolean gone = false;
        synchronized (request) {
            pool.put(request.id(), request);
            int start = open.incrementAndGet();
            byType.get(spec.type()).incrementAndGet();
            Map<String, PullHistory.Replay> missed = join(request, spec);
            request.received(clock.millis());
            ScheduledFuture<?> timeout = null;
            if (spec.isPoll()) {
                try {
                    long delay = fallbackDelay(request, observer);
                    timeout = timers.schedule(request::expire, delay, TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException e) {
                    rejected = true;
                }
            }
            request.registered(start, timeout);
            gone = spec.isQueued() && !request.joined(missed);
        }
        if (log.enabled()) {
            log.info("request " + request.id() + " received: " + Json.write(spec.echo()));
        }
        if (gone) {
            request.finish();
        } else if (closed || rejected) {
            request.clear("shutdown");
        }
        return request;
    }

    /** Onto each name's list; a queued stream also learns, per name, what it missed after its cursor. */
    private Map<String, PullHistory.Replay> join(PushRequest request, PushSpec spec) {
        Map<String, PullHistory.Replay> missed = new LinkedHashMap<>();
        Map<String, Long> given = spec.cursor();
        for (String name : spec.subscriptions()) {
            Subscription subscription = subscriptions.of(name);
            if (spec.isQueued()) {
                missed.put(name, subscription.join(request, given == null ? null : given.get(name), streams.replayCycles()));
            } else {
                subscription.add(request);
            }
        }
        return missed;
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
        byType.get(request.spec().type()).decrementAndGet();
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
        return count(PushSpec.Type.COMET);
    }

    public int pollCount() {
        return count(PushSpec.Type.POLL);
    }

    /** Open requests of one held type. */
    public int count(PushSpec.Type type) {
        return byType.get(type).get();
    }

    Clock clock() {
        return clock;
    }

    LogManager log() {
        return log;
    }
}
