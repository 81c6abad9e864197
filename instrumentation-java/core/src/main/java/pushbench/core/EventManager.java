package pushbench.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The study's event manager: creates, changes and removes named emitters, at most {@code maxEmitters} at
 * once (docs/protocol.md: a set of a new name beyond the cap is refused).
 */
public final class EventManager {
    /** The state {@link #set} returns when the cap is reached and the name is new: nothing changed. */
    public static final String FULL = "full";

    private final Map<String, EventEmitter> emitters = new LinkedHashMap<>(); // guarded by this
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
            emitter = new EventEmitter(name, subscriptions.of(name), scheduler, clock, log);
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
        return count;
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
