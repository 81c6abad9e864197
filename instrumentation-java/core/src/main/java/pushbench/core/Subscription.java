package pushbench.core;

import java.util.LinkedHashSet;

/**
 * The requests subscribed to one event name, in subscription order. The lock is held only to add, remove
 * or copy: an emit cycle copies the set and works on the copy (the study's fix for request threads that
 * were blocked for a whole emit cycle), so requests added during a cycle simply wait for the next one.
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

    synchronized PushRequest[] snapshot() {
        return requests.toArray(NONE);
    }

    synchronized int size() {
        return requests.size();
    }

    /** The cycles of this name kept for pulls (its own lock). */
    PullHistory history() {
        return history;
    }
}
