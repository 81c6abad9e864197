package pushbench.core;

/** One fire of an emitter: its id, when it started and how many requests its snapshot holds. */
public final class EmitCycle {
    final String name;
    final long id;
    final long created;
    final int total;

    EmitCycle(String name, long id, long created, int total) {
        this.name = name;
        this.id = id;
        this.created = created;
        this.total = total;
    }
}
