package pushbench.core;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Subscription lists by event name, independent of emitters: a request may subscribe to a name before any
 * emitter of that name exists, and an emitter set later reaches it. Lists are created on first use and
 * kept; names are bounded by what the load plan uses.
 */
final class Subscriptions {
    private final ConcurrentHashMap<String, Subscription> byName = new ConcurrentHashMap<>();

    Subscription of(String name) {
        return byName.computeIfAbsent(name, n -> new Subscription());
    }
}
