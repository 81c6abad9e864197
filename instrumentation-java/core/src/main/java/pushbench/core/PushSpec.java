package pushbench.core;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;

/** A validated POST /request body: what to hold, for which events, and for how long. */
public final class PushSpec {
    public enum Type {
        COMET, POLL
    }

    private final Type type;
    private final List<String> events;
    private final Long duration;
    private final JsonObject echo;

    PushSpec(Type type, List<String> events, Long duration) {
        this.type = type;
        this.events = Collections.unmodifiableList(new ArrayList<>(events));
        this.duration = duration;
        JsonObject echo = new JsonObject();
        echo.addProperty("type", type == Type.COMET ? "comet" : "poll");
        JsonArray names = new JsonArray();
        for (String name : events) {
            names.add(name);
        }
        echo.add("events", names);
        if (duration != null) {
            echo.addProperty("duration", duration);
        }
        this.echo = echo;
    }

    public Type type() {
        return type;
    }

    public boolean isComet() {
        return type == Type.COMET;
    }

    /** The event names as sent (duplicates kept, as echoed). */
    public List<String> events() {
        return events;
    }

    /** Each name once, in the order sent: a request is subscribed to a name at most once. */
    public List<String> subscriptions() {
        return new ArrayList<>(new LinkedHashSet<>(events));
    }

    /** Poll: the maximum hold in ms. Comet: the duration if a valid one was sent, else null. */
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
