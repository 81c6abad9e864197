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
 * The same history is the replay buffer of a resumed SSE or WebSocket stream (docs/protocol.md "Replay
 * and gaps"): the cycles after its cursor among the last N started ({@link #replay}).
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

    /**
     * For a stream resuming after cycle {@code after}: the kept cycles after it among the last {@code limit}
     * (at most {@link #KEEP}) started, and the ones after it that it will not get. A cursor at or past the
     * latest cycle misses nothing (ids restart at 1 when an emitter is set again).
     */
    synchronized Replay replay(long after, int limit) {
        long latest = latest();
        List<long[]> kept = new ArrayList<>();
        if (latest <= after) {
            return Replay.none(latest);
        }
        int skip = Math.max(0, cycles.size() - Math.min(limit, keep));
        for (long[] cycle : cycles) {
            if (skip-- <= 0 && cycle[0] > after) {
                kept.add(cycle);
            }
        }
        long next = kept.isEmpty() ? latest + 1 : kept.get(0)[0];
        return new Replay(latest, kept, after + 1, next - 1);
    }

    /** What a resumed stream gets of one name: a gap record if any cycle is missed, then a replay record per kept one. */
    static final class Replay {
        /** The latest cycle started when the stream joined (0 when none). */
        final long latest;
        /** {id, created} of each cycle to replay, oldest first. */
        final List<long[]> cycles;
        /** The first and last cycle after the cursor no longer replayed; no gap when from is past to. */
        final long gapFrom;
        final long gapTo;

        Replay(long latest, List<long[]> cycles, long gapFrom, long gapTo) {
            this.latest = latest;
            this.cycles = cycles;
            this.gapFrom = gapFrom;
            this.gapTo = gapTo;
        }

        /** Nothing to replay: the stream starts after the latest cycle. */
        static Replay none(long latest) {
            return new Replay(latest, new ArrayList<>(), 0, 0);
        }

        boolean hasGap() {
            return gapFrom <= gapTo && gapFrom > 0;
        }
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
