package pushbench.core;

import com.google.gson.JsonElement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The study's event manager: creates, changes and removes named emitters, at most {@code maxEmitters} at
 * once (docs/protocol.md: a set of a new name beyond the cap is refused). A publish runs one emit cycle of
 * a name now and creates no emitter (so the cap does not apply): its id continues the name's emitter's
 * ids, else the name's own count of publishes, kept for at most {@link #PUBLISHED_NAMES} names (the least
 * recently published forgotten first: its ids start again from 1).
 */
public final class EventManager {
    /** The state {@link #set} returns when the cap is reached and the name is new: nothing changed. */
    public static final String FULL = "full";
    /** Names whose count of publishes is kept (names without an emitter). */
    public static final int PUBLISHED_NAMES = 65536;

    private final Map<String, EventEmitter> emitters = new LinkedHashMap<>(); // guarded by this
    // name -> last cycle id published, for names without an emitter; least recently published first.
    private final Map<String, Long> published = new LinkedHashMap<String, Long>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > PUBLISHED_NAMES;
        }
    }; // guarded by this
    // Publishes of one name are written in cycle order: a lane per name with publishes waiting, run by one
    // emitter thread at a time (other names' lanes on the other threads).
    private final Map<String, ArrayDeque<Runnable>> lanes = new HashMap<>(); // guarded by lanes
    private final int maxEmitters;
    private final Subscriptions subscriptions;
    private final ScheduledExecutorService scheduler;
    private final Clock clock;
    private final LogManager log;

    EventManager(Subscriptions subscriptions, ScheduledExecutorService scheduler, Clock clock, LogManager log,
            int maxEmitters) {
        this.maxEmitters = maxEmitters;
        this.subscriptions = subscriptions;
        this.scheduler = scheduler;
        this.clock = clock;
        this.log = log;
    }

    /** Creates the emitter or changes its interval; returns "created", "changed" or {@link #FULL}. */
    public synchronized String set(String name, long frequency) {
        EventEmitter emitter = emitters.get(name);
        String state = "changed";
        if (emitter == null) {
            if (emitters.size() >= maxEmitters) {
                return FULL;
            }
            Long publishedCycles = published.remove(name); // ids continue the name's publishes
            emitter = new EventEmitter(name, subscriptions.of(name), scheduler, clock, log,
                    publishedCycles == null ? 0 : publishedCycles);
            emitters.put(name, emitter);
            state = "created";
        }
        emitter.start(frequency);
        log.info("event " + name + " " + state + ", every " + frequency + " ms");
        return state;
    }

    /** Stops one emitter; its subscribers stay subscribed. False if there is none of that name. */
    public synchronized boolean remove(String name) {
        EventEmitter emitter = emitters.remove(name);
        if (emitter == null) {
            return false;
        }
        emitter.stop();
        log.info("event " + name + " removed");
        return true;
    }

    /** Stops and removes every emitter; returns how many. */
    public synchronized int clear() {
        int count = emitters.size();
        for (EventEmitter emitter : emitters.values()) {
            emitter.stop();
        }
        emitters.clear();
        published.clear();
        return count;
    }

    /**
     * Runs one emit cycle of {@code name} now, on the emitter threads (data: what its event records carry,
     * null for none); returns its id. The id and the snapshot are taken here, in one step; it runs beside
     * a cycle of the name's emitter in progress, if any.
     */
    public synchronized long publish(String name, JsonElement data) {
        Subscription subscription = subscriptions.of(name);
        EventEmitter emitter = emitters.get(name);
        long id;
        long created;
        PushRequest[] snapshot;
        synchronized (subscription) {
            created = clock.millis();
            if (emitter != null) {
                id = emitter.nextCycle();
            } else {
                Long last = published.get(name);
                id = (last == null ? 0 : last) + 1;
                published.put(name, id);
            }
            snapshot = subscription.cycle(id, created);
        }
        EmitCycle cycle = new EmitCycle(name, id, created, snapshot.length, data);
        inLane(name, () -> {
            EventEmitter.deliverAll(cycle, snapshot, log);
            if (log.enabled()) {
                log.info("publish " + name + "#" + id + ": " + snapshot.length + " requests");
            }
        });
        return id;
    }

    /** Runs task after the publishes of name before it (called in cycle order: publish holds this). */
    private void inLane(String name, Runnable task) {
        synchronized (lanes) {
            ArrayDeque<Runnable> lane = lanes.get(name);
            if (lane != null) {
                lane.add(task);
                return;
            }
            lanes.put(name, new ArrayDeque<>());
        }
        try {
            scheduler.execute(() -> drain(name, task));
        } catch (RejectedExecutionException e) {
            synchronized (lanes) {
                lanes.remove(name); // the scheduler is shut down: the webapp is stopping
            }
        }
    }

    private void drain(String name, Runnable first) {
        Runnable task = first;
        while (task != null) {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                log.fault("publish of " + name + " failed", e);
            }
            synchronized (lanes) {
                task = lanes.get(name).poll();
                if (task == null) {
                    lanes.remove(name);
                }
            }
        }
    }

    public int maxEmitters() {
        return maxEmitters;
    }

    synchronized List<EventEmitter> list() {
        List<EventEmitter> list = new ArrayList<>(emitters.values());
        list.sort(Comparator.comparing(EventEmitter::name));
        return list;
    }

    /** For tests: the emitter of a name, or null. */
    synchronized EventEmitter emitter(String name) {
        return emitters.get(name);
    }
}
