package pushbench.core;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One named emitter. Each fire is an emit cycle: snapshot the name's subscription list, then write one
 * event record to each request in it. Fires are due every {@code frequency} ms from the last set; a cycle
 * that overruns its period is followed at once by the next, without bursts of catch-up cycles.
 * Cycles of one emitter never overlap (cycleLock), even across a change of frequency.
 */
final class EventEmitter {
    private final String name;
    private final Subscription subscription;
    private final ScheduledExecutorService scheduler;
    private final Clock clock;
    private final LogManager log;
    private final AtomicLong cycles = new AtomicLong();
    private final Object cycleLock = new Object();
    // Guarded by "this": which schedule is current. A fire of an older generation does nothing.
    private long generation;
    private long frequency;
    private long dueNanos;
    private boolean stopped;
    private ScheduledFuture<?> future;
    private volatile long[] lastCycle; // {total, durationMicros} of the latest completed cycle, or null

    /** firstCycle: the id before this emitter's first cycle (the name's publishes so far, else 0). */
    EventEmitter(String name, Subscription subscription, ScheduledExecutorService scheduler, Clock clock,
            LogManager log, long firstCycle) {
        cycles.set(firstCycle);
        this.name = name;
        this.subscription = subscription;
        this.scheduler = scheduler;
        this.clock = clock;
        this.log = log;
    }

    /** (Re)starts the schedule: first fire {@code frequencyMs} from now; cycle ids continue. */
    synchronized void start(long frequencyMs) {
        if (stopped) {
            return;
        }
        if (future != null) {
            future.cancel(false);
        }
        frequency = frequencyMs;
        generation++;
        dueNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(frequencyMs);
        schedule(generation, frequencyMs);
    }

    synchronized void stop() {
        stopped = true;
        generation++;
        if (future != null) {
            future.cancel(false);
        }
    }

    private void schedule(long gen, long delayMs) {
        try {
            future = scheduler.schedule(() -> fire(gen), delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            stopped = true; // the scheduler is shut down: the webapp is stopping
        }
    }

    private synchronized boolean current(long gen) {
        return !stopped && gen == generation;
    }

    private void fire(long gen) {
        synchronized (cycleLock) {
            if (!current(gen)) {
                return;
            }
            try {
                emit();
            } catch (RuntimeException | Error e) {
                // A periodic task that throws is never run again: log it and keep the emitter alive.
                log.fault("emit cycle of " + name + " failed", e);
            }
            synchronized (this) {
                if (!stopped && gen == generation) {
                    long now = System.nanoTime();
                    dueNanos += TimeUnit.MILLISECONDS.toNanos(frequency);
                    if (dueNanos < now) {
                        dueNanos = now;
                    }
                    schedule(gen, TimeUnit.NANOSECONDS.toMillis(dueNanos - now));
                }
            }
        }
    }

    /** One emit cycle; package-private so tests can run cycles deterministically. */
    EmitCycle emit() {
        long began = System.nanoTime();
        long created;
        long id;
        PushRequest[] snapshot;
        // The id and the cycle's record in the name's history in one step, as a publish takes them (the
        // history keeps ids ascending).
        synchronized (subscription) {
            created = clock.millis();
            id = cycles.incrementAndGet();
            snapshot = subscription.cycle(id, created);
        }
        EmitCycle cycle = new EmitCycle(name, id, created, snapshot.length);
        deliverAll(cycle, snapshot, log);
        long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - began);
        lastCycle = new long[] {snapshot.length, micros};
        if (log.enabled()) {
            log.info("emit cycle " + name + "#" + id + ": " + snapshot.length + " requests in " + micros + " us");
        }
        return cycle;
    }

    /** Writes one cycle's record to each request of its snapshot, in order; one that fails is logged. */
    static void deliverAll(EmitCycle cycle, PushRequest[] snapshot, LogManager log) {
        for (int i = 0; i < snapshot.length; i++) {
            try {
                snapshot[i].deliver(cycle, i + 1);
            } catch (RuntimeException e) {
                log.fault("delivering " + cycle.name + "#" + cycle.id + " failed", e);
            }
        }
    }

    /** A publish's id: the next of this emitter's cycles (the caller holds the subscription's lock). */
    long nextCycle() {
        return cycles.incrementAndGet();
    }

    String name() {
        return name;
    }

    synchronized long frequency() {
        return frequency;
    }

    long cycle() {
        return cycles.get();
    }

    /** {total, durationMicros} of the latest completed cycle, or null before the first one ends. */
    long[] lastCycle() {
        return lastCycle;
    }
}
