package pushbench.core;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One held request: a comet stream or poll (POST /request), an SSE stream or a WebSocket. Its life is OPEN
 * until exactly one of these completes it: an event (poll), its timeout (poll), clear or shutdown, a failed
 * write (a client gone, or a stream cut for not reading) or the container reporting the client gone.
 * Every state change and every write happens under this object's monitor, so a record can never be
 * written after completion and two emitters never write to one response at the same time; {@code done}
 * is also atomic so that emitters can skip finished requests without taking the lock.
 *
 * Each record is framed here for its transport (docs/protocol.md "Server-Sent Events and WebSocket"): the
 * same compact JSON for all, a comet line ending in "\n", an SSE event ({@code id:} the stream's cursor,
 * {@code data:} the record), a poll's answer or a WebSocket frame the JSON alone.
 */
public final class PushRequest {
    private final long id;
    private final PushSpec spec;
    /**
     * When the request manager registered it (ms): stamped once it is on every list it subscribes to, under
     * this object's lock, before any record is written ({@link RequestManager#open}). An emit cycle stamps its
     * start under its list's lock, so every cycle that starts after this stamp has it in its snapshot.
     */
    private volatile long created;
    private final RequestObserver observer;
    private final RequestManager manager;
    private final AtomicBoolean done = new AtomicBoolean();
    private volatile int start;
    private volatile ScheduledFuture<?> timeout;
    /** SSE and WebSocket: per subscribed name, the last cycle this stream got or started after; guarded by this. */
    private final Map<String, Long> cursor = new LinkedHashMap<>();

    PushRequest(long id, PushSpec spec, RequestObserver observer, RequestManager manager) {
        this.id = id;
        this.spec = spec;
        this.observer = observer;
        this.manager = manager;
    }

    public long id() {
        return id;
    }

    public PushSpec spec() {
        return spec;
    }

    long created() {
        return created;
    }

    int start() {
        return start;
    }

    /** The request manager, under this object's lock, once the request is on every list: its stamp. */
    void received(long millis) {
        this.created = millis;
    }

    void registered(int start, ScheduledFuture<?> timeout) {
        this.start = start;
        this.timeout = timeout;
    }

    ScheduledFuture<?> timeout() {
        return timeout;
    }

    /** Milliseconds left of a poll's duration since it was opened: 0 or less once it is up. */
    public long remainingMillis() {
        Long duration = spec.duration();
        return duration == null ? Long.MAX_VALUE : duration - (manager.clock().millis() - created);
    }

    public boolean isOpen() {
        return !done.get();
    }

    /** Emitter: write one event record. A poll is completed by it; a stream stays open. */
    void deliver(EmitCycle cycle, int place) {
        if (done.get()) {
            return;
        }
        if (spec.isStream()) {
            boolean gone;
            synchronized (this) {
                if (done.get()) {
                    return;
                }
                long sent = manager.clock().millis();
                if (spec.isQueued()) {
                    cursor.put(cycle.name, cycle.id);
                }
                gone = !writeLive(Json.write(Records.event(this, cycle, place, sent, manager.openCount())));
                if (!gone && manager.log().enabled()) {
                    manager.log().info("sent " + cycle.name + "#" + cycle.id + " to " + typeName() + " " + id);
                }
            }
            if (gone) {
                finish();
            }
        } else {
            synchronized (this) {
                if (!done.compareAndSet(false, true)) {
                    return;
                }
                long sent = manager.clock().millis();
                writeFinal(Json.write(Records.event(this, cycle, place, sent, manager.openCount())));
                manager.log().info("sent " + cycle.name + "#" + cycle.id + " to poll " + id);
            }
            finish();
        }
    }

    /**
     * At registration, under this object's lock (so no live record comes first): the stream's cursor, per
     * subscribed name the latest cycle when it joined or the one its cursor gives; then, per name it resumes,
     * the gap record and the replay records of what it missed (docs/protocol.md "Replay and gaps"), in the
     * order of its events. {@code missed}: per subscribed name, in order. Returns false if a write failed
     * (the stream is then to be finished).
     */
    boolean joined(Map<String, PullHistory.Replay> missed) {
        Map<String, Long> given = spec.cursor() == null ? new LinkedHashMap<>() : spec.cursor();
        missed.forEach((name, replay) -> cursor.put(name, given.containsKey(name) ? given.get(name) : replay.latest));
        for (Map.Entry<String, PullHistory.Replay> entry : missed.entrySet()) {
            String name = entry.getKey();
            PullHistory.Replay replay = entry.getValue();
            if (replay.hasGap()) {
                cursor.put(name, replay.gapTo);
                long sent = manager.clock().millis();
                if (!writeLive(Json.write(Records.gap(this, name, replay.gapFrom, replay.gapTo, sent, manager.openCount())))) {
                    return false;
                }
            }
            for (long[] kept : replay.cycles) {
                cursor.put(name, kept[0]);
                long sent = manager.clock().millis();
                if (!writeLive(Json.write(Records.replay(this, name, kept, sent, manager.openCount())))) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Under this object's lock: one record of an open stream. False (and done) if its client is gone or it was cut. */
    private boolean writeLive(String json) {
        try {
            observer.write(framed(json));
            return true;
        } catch (Exception e) {
            // The client went away mid-stream, or the stream was cut: drop it silently, not a server fault.
            done.set(true);
            manager.log().info(typeName() + " " + id + " gone: " + e);
            return false;
        }
    }

    /** A record as its transport frames it. */
    private String framed(String json) {
        switch (spec.type()) {
            case COMET:
                return json + "\n";
            case SSE:
                return "id: " + idText() + "\ndata: " + json + "\n\n";
            default:
                return json;
        }
    }

    /** An SSE stream's id: its cursor as "name:cycle" per subscribed name, joined by ",". */
    private String idText() {
        StringBuilder text = new StringBuilder();
        for (Map.Entry<String, Long> entry : cursor.entrySet()) {
            text.append(text.length() == 0 ? "" : ",").append(entry.getKey()).append(':').append(entry.getValue());
        }
        return text.toString();
    }

    private String typeName() {
        return spec.type().name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Timer (or the container's own timeout): a poll that got no event in time gets a timeout record. */
    public boolean expire() {
        synchronized (this) {
            if (!done.compareAndSet(false, true)) {
                return false;
            }
            long sent = manager.clock().millis();
            writeFinal(Json.write(Records.timeout(this, sent, manager.openCount())));
            manager.log().info("poll " + id + " timed out");
        }
        finish();
        return true;
    }

    /** Clear or shutdown: a final clear record, for every held type alike. */
    boolean clear(String reason) {
        synchronized (this) {
            if (!done.compareAndSet(false, true)) {
                return false;
            }
            long sent = manager.clock().millis();
            observer.clearing(reason);
            writeFinal(Json.write(Records.clear(this, reason, sent, manager.openCount())));
            manager.log().info("request " + id + " cleared (" + reason + ")");
        }
        finish();
        return true;
    }

    /** The container is stopping and ends this request: a clear record with reason "shutdown". */
    public boolean shutdown() {
        return clear("shutdown");
    }

    /**
     * The container reports the request over (client gone, END/ERROR event, onComplete/onError). Waits for
     * a write in progress, then removes the request everywhere; nothing is written to it again. The handler
     * closes its response itself: {@link RequestObserver#complete()} is not called.
     *
     * @return true if this call completed the request, false if it was already done
     */
    public boolean abandon() {
        synchronized (this) {
            if (!done.compareAndSet(false, true)) {
                return false;
            }
        }
        manager.completed(this);
        manager.log().info("request " + id + " abandoned by its client");
        return true;
    }

    private void writeFinal(String json) {
        try {
            observer.write(framed(json));
        } catch (Exception e) {
            manager.log().info("request " + id + " gone before its last record: " + e);
        }
    }

    /** After the final write, outside the lock: bookkeeping, then end the response exactly once. */
    void finish() {
        manager.completed(this);
        try {
            observer.complete();
        } catch (RuntimeException e) {
            manager.log().info("request " + id + " could not be closed: " + e);
        }
    }
}
