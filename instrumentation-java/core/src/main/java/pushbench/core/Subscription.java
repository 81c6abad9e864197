package pushbench.core;

import java.util.LinkedHashSet;

/**
 * The requests subscribed to one event name, in subscription order. The lock is held only to add, remove
 * or copy: an emit cycle copies the set and works on the copy (the study's fix for request threads that
 * were blocked for a whole emit cycle), so requests added during a cycle simply wait for the next one.
 * A cycle is recorded in the name's history and its snapshot taken in one step ({@link #cycle}), and a
 * resumed stream joins and reads what it missed in one step ({@link #join}): so each cycle reaches a
 * resumed stream exactly once, replayed or live (docs/protocol.md "Replay and gaps").
 */
final class Subscription {
    private static final PushRequest[] NONE = new PushRequest[0];

    private final LinkedHashSet<PushRequest> requests = new LinkedHashSet<>();
    private final PullHistory history = new PullHistory();

    synchronized void add(PushRequest request) {
        requests.add(request);
    }

    synchronized void remove(PushRequest request) {
        requests.remove(request);
    }

    /** An emit cycle starts: recorded in the history, and the requests it reaches. */
    synchronized PushRequest[] cycle(long id, long created) {
        history.record(id, created);
        return requests.toArray(NONE);
    }

    /**
     * A stream joins: added, and what it missed after {@code after} within the last {@code limit} cycles
     * (after null: it resumes nothing of this name, and starts after the latest cycle).
     */
    synchronized PullHistory.Replay join(PushRequest request, Long after, int limit) {
        requests.add(request);
        return after == null ? PullHistory.Replay.none(history.latest()) : history.replay(after, limit);
    }

    synchronized int size() {
        return requests.size();
    }

    /** The cycles of this name kept for pulls (its own lock). */
    PullHistory history() {
        return history;
    }
}
