package pushbench.core;

import com.google.gson.JsonObject;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The settings and the writers of the SSE and WebSocket streams (docs/protocol.md "Server-Sent Events and
 * WebSocket"), one instance per webapp:
 * <ul>
 * <li>the replay bound N: a resumed stream gets again at most the last N cycles per name, beyond them one
 *     gap record ({@code pb.replayCycles}, from PB_REPLAY_CYCLES: 0 to 1024, default 100);</li>
 * <li>the backlog bound: a stream whose unsent bytes pass it after a write is cut and counted in /status
 *     {@code streams.dropped} ({@code pb.streamBacklogBytes}, from PB_STREAM_BACKLOG_BYTES: default 1 MiB);</li>
 * <li>the writer threads that take each stream's {@link Outbox} to its client, so that no emit cycle waits
 *     for a client that does not read.</li>
 * </ul>
 */
public final class Streams {
    public static final int DEFAULT_REPLAY_CYCLES = 100;
    public static final long DEFAULT_BACKLOG_BYTES = 1024 * 1024;
    /**
     * Writer threads. A write to a client that stopped reading blocks its writer until the stream is cut
     * (and, on Tomcat's NIO connectors, until the connector's write timeout, connectionTimeout, ends it);
     * the others go on writing every other stream.
     */
    static final int WRITERS = 16;

    private final int replayCycles;
    private final long backlogBytes;
    private final AtomicLong dropped = new AtomicLong();
    private final ThreadPoolExecutor writers;

    public Streams(int replayCycles, long backlogBytes) {
        this.replayCycles = replayCycles;
        this.backlogBytes = backlogBytes;
        AtomicInteger count = new AtomicInteger();
        writers = new ThreadPoolExecutor(WRITERS, WRITERS, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), runnable -> {
            Thread thread = new Thread(runnable, "pushbench-stream-writer-" + count.incrementAndGet());
            thread.setDaemon(true);
            // Not the webapp's class loader: see Instrumentation's executors.
            thread.setContextClassLoader(Streams.class.getClassLoader().getParent());
            return thread;
        });
    }

    /** From the system properties the Tomcat launch sets (servers/tomcat-common.sh), with the defaults. */
    static Streams fromSystemProperties() {
        return new Streams((int) whole(System.getProperty("pb.replayCycles"), 0, PullHistory.KEEP, DEFAULT_REPLAY_CYCLES),
                whole(System.getProperty("pb.streamBacklogBytes"), 1, Long.MAX_VALUE, DEFAULT_BACKLOG_BYTES));
    }

    /** A whole number within [min, max], else the default (as the Node server reads the same settings). */
    static long whole(String raw, long min, long max, long otherwise) {
        String text = raw == null ? "" : raw.trim();
        if (!text.matches("[0-9]{1,15}")) {
            return otherwise;
        }
        long value = Long.parseLong(text);
        return value >= min && value <= max ? value : otherwise;
    }

    public int replayCycles() {
        return replayCycles;
    }

    public long backlogBytes() {
        return backlogBytes;
    }

    /** A stream's observer behind its write queue. */
    RequestObserver outbox(RequestObserver sink) {
        return new Outbox(sink, this);
    }

    /** Runs a stream's writing on a writer thread; on the caller's once the writers are stopped (shutdown). */
    void write(Runnable drain) {
        try {
            writers.execute(drain);
        } catch (RejectedExecutionException e) {
            drain.run();
        }
    }

    void dropped() {
        dropped.incrementAndGet();
    }

    /** /status's {@code "streams"}: {"dropped":n}. */
    public JsonObject status() {
        JsonObject counts = new JsonObject();
        counts.addProperty("dropped", dropped.get());
        return counts;
    }

    /** Webapp stop, after every stream got its last record: lets the writers send it, for at most 5 s. */
    void shutdown() {
        writers.shutdown();
        try {
            writers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        writers.shutdownNow();
    }
}
