package pushbench.core;

import com.google.gson.JsonElement;

/**
 * One emit cycle (a fire of an emitter, or a publish): its id, when it started, how many requests its
 * snapshot holds, and a publish's data (null: none, the record has no "data").
 */
public final class EmitCycle {
    final String name;
    final long id;
    final long created;
    final int total;
    final JsonElement data;

    EmitCycle(String name, long id, long created, int total) {
        this(name, id, created, total, null);
    }

    EmitCycle(String name, long id, long created, int total, JsonElement data) {
        this.name = name;
        this.id = id;
        this.created = created;
        this.total = total;
        this.data = data;
    }
}
