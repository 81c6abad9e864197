package pushbench.core;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A validated POST /request body: what to hold, for which events, and for how long. */
public final class PushSpec {
    public enum Type {
        COMET, POLL, PULL
    }

    private final Type type;
    private final List<String> events;
    private final Long duration;
    private final JsonObject echo;
    private final Map<String, Long> cursor;

    PushSpec(Type type, List<String> events, Long duration) {
        this(type, events, duration, null);
    }

    /** cursor: a pull's last cycle id per name (null: none sent). */
    PushSpec(Type type, List<String> events, Long duration, Map<String, Long> cursor) {
        this.type = type;
        this.cursor = cursor == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(cursor));
        this.events = Collections.unmodifiableList(new ArrayList<>(events));
        this.duration = duration;
        JsonObject echo = new JsonObject();
        echo.addProperty("type", type.name().toLowerCase(Locale.ROOT));
        JsonArray names = new JsonArray();
        for (String name : events) {
            names.add(name);
        }
        echo.add("events", names);
        if (duration != null) {
            echo.addProperty("duration", duration);
        }
        if (cursor != null) {
            JsonObject sent = new JsonObject();
            cursor.forEach(sent::addProperty);
            echo.add("cursor", sent);
        }
        this.echo = echo;
    }

    public Type type() {
        return type;
    }

    public boolean isComet() {
        return type == Type.COMET;
    }

    /** Short polling: answered at once by {@link RequestManager#pull}, never held. */
    public boolean isPull() {
        return type == Type.PULL;
    }

    /** A pull's cursor: last cycle id per name as sent, or null when none was sent. */
    public Map<String, Long> cursor() {
        return cursor;
    }

    /** The event names as sent (duplicates kept, as echoed). */
    public List<String> events() {
        return events;
    }

    /** Each name once, in the order sent: a request is subscribed to a name at most once. */
    public List<String> subscriptions() {
        return new ArrayList<>(new LinkedHashSet<>(events));
    }

    /** Poll: the maximum hold in ms. Comet and pull: the duration if a valid one was sent, else null. */
    public Long duration() {
        return duration;
    }

    /**
     * The record's "request" field: the body as the server parsed it. Shared by every record of this
     * request and only ever read (serialized), never changed after construction.
     */
    JsonObject echo() {
        return echo;
    }
}
