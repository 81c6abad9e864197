package pushbench.core;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Short polling (type "pull", docs/protocol.md "Pull"): the last {@link #KEEP} emit cycles one event name
 * started ({id, created}), so a pull is answered at once with every cycle after the client's cursor. The
 * server keeps nothing per client. One instance per name, kept by its {@link Subscription}.
 */
final class PullHistory {
    /** Cycles kept per event name. */
    static final int KEEP = 1024;

    private final int keep;
    private final ArrayDeque<long[]> cycles = new ArrayDeque<>(); // {id, created}, ascending ids; guarded by this

    PullHistory() {
        this(KEEP);
    }

    PullHistory(int keep) {
        this.keep = keep;
    }

    /** A cycle started. An id not above the last kept means the emitter was set again: start over. */
    synchronized void record(long id, long created) {
        if (!cycles.isEmpty() && id <= cycles.peekLast()[0]) {
            cycles.clear();
        }
        cycles.addLast(new long[] {id, created});
        while (cycles.size() > keep) {
            cycles.removeFirst();
        }
    }

    synchronized long latest() {
        return cycles.isEmpty() ? 0 : cycles.peekLast()[0];
    }

    /** The kept cycles after {@code after}, oldest first. */
    synchronized List<long[]> since(long after) {
        List<long[]> fresh = new ArrayList<>();
        for (long[] cycle : cycles) {
            if (cycle[0] > after) {
                fresh.add(cycle);
            }
        }
        return fresh;
    }

    /**
     * Adds this name's part of a pull answer to {@code events} and {@code cursor}; returns the cycles after
     * {@code given} that are no longer kept. {@code given} null: no cursor for this name, the window starts.
     */
    int answer(String name, Long given, long sent, JsonArray events, JsonObject cursor) {
        if (given == null) {
            cursor.addProperty(name, latest());
            return 0;
        }
        List<long[]> fresh = since(given);
        long last = given;
        for (long[] cycle : fresh) {
            JsonObject timings = new JsonObject();
            timings.addProperty("duration", sent - cycle[1]);
            timings.addProperty("sent", sent);
            timings.addProperty("created", cycle[1]);
            JsonObject event = new JsonObject();
            event.addProperty("name", name);
            event.addProperty("cycle", cycle[0]);
            event.add("timings", timings);
            events.add(event);
            last = cycle[0];
        }
        cursor.addProperty(name, last);
        return fresh.isEmpty() ? 0 : (int) Math.max(0, fresh.get(0)[0] - given - 1);
    }
}
