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

/**
 * A validated subscription: a POST /request body (comet, poll, pull), an SSE query with its Last-Event-ID,
 * or a WebSocket's first message (docs/protocol.md "Request manager", "Server-Sent Events", "WebSocket"):
 * what to hold, for which events, for how long, and from which cursor.
 */
public final class PushSpec {
    /** The transports; comet, SSE and WebSocket are streams (held until clear, shutdown or the client leaves). */
    public enum Type {
        COMET, POLL, PULL, SSE, WS
    }

    private final Type type;
    private final List<String> events;
    private final Long duration;
    private final JsonObject echo;
    private final Map<String, Long> cursor;

    PushSpec(Type type, List<String> events, Long duration) {
        this(type, events, duration, null);
    }

    /** cursor: a pull's, an SSE stream's or a WebSocket's last cycle id per name (null: none sent). */
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

    /** The stream of NDJSON lines (POST /request type comet). */
    public boolean isComet() {
        return type == Type.COMET;
    }

    /** Held until an event or its duration: one record, then the answer ends. */
    public boolean isPoll() {
        return type == Type.POLL;
    }

    /** Held with no maximum, one record per event: comet, SSE and WebSocket. */
    public boolean isStream() {
        return type == Type.COMET || type == Type.SSE || type == Type.WS;
    }

    /**
     * SSE and WebSocket: written through a queue whose client may be cut for not reading, and resumable
     * from a cursor ({@link Outbox}, docs/protocol.md "Replay and gaps", "Clients that do not read").
     */
    public boolean isQueued() {
        return type == Type.SSE || type == Type.WS;
    }

    /** Short polling: answered at once by {@link RequestManager#pull}, never held. */
    public boolean isPull() {
        return type == Type.PULL;
    }

    /** The cursor as sent (a pull's, Last-Event-ID, a WebSocket's): last cycle id per name, or null when none was. */
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
