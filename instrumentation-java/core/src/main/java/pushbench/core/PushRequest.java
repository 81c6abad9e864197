package pushbench.core;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One held POST /request. Its life is OPEN until exactly one of these completes it: an event (poll), its
 * timeout (poll), clear or shutdown (both types), a failed write or the container reporting the client
 * gone. Every state change and every write happens under this object's monitor, so a record can never be
 * written after completion and two emitters never write to one response at the same time; {@code done}
 * is also atomic so that emitters can skip finished requests without taking the lock.
 */
public final class PushRequest {
    private final long id;
    private final PushSpec spec;
    private final long created;
    private final RequestObserver observer;
    private final RequestManager manager;
    private final AtomicBoolean done = new AtomicBoolean();
    private volatile int start;
    private volatile ScheduledFuture<?> timeout;

    PushRequest(long id, PushSpec spec, long created, RequestObserver observer, RequestManager manager) {
        this.id = id;
        this.spec = spec;
        this.created = created;
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

    /** Emitter: write one event record. A poll is completed by it; a comet stays open. */
    void deliver(EmitCycle cycle, int place) {
        if (done.get()) {
            return;
        }
        if (spec.isComet()) {
            boolean gone = false;
            synchronized (this) {
                if (done.get()) {
                    return;
                }
                long sent = manager.clock().millis();
                String line = Json.write(Records.event(this, cycle, place, sent, manager.openCount())) + "\n";
                try {
                    observer.write(line);
                    manager.log().info("sent " + cycle.name + "#" + cycle.id + " to comet " + id);
                } catch (Exception e) {
                    // The client went away mid-stream: drop it silently, it is not a server fault.
                    done.set(true);
                    gone = true;
                    manager.log().info("comet " + id + " gone: " + e);
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

    /** Clear or shutdown: a final clear record, for comet and poll alike. */
    boolean clear(String reason) {
        synchronized (this) {
            if (!done.compareAndSet(false, true)) {
                return false;
            }
            long sent = manager.clock().millis();
            String text = Json.write(Records.clear(this, reason, sent, manager.openCount()));
            writeFinal(spec.isComet() ? text + "\n" : text);
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

    private void writeFinal(String text) {
        try {
            observer.write(text);
        } catch (Exception e) {
            manager.log().info("request " + id + " gone before its last record: " + e);
        }
    }

    /** After the final write, outside the lock: bookkeeping, then end the response exactly once. */
    private void finish() {
        manager.completed(this);
        try {
            observer.complete();
        } catch (RuntimeException e) {
            manager.log().info("request " + id + " could not be closed: " + e);
        }
    }
}
