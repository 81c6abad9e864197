package pushbench.core;

import java.io.IOException;
import java.util.ArrayDeque;

/**
 * The write queue of one SSE or WebSocket stream (docs/protocol.md "Clients that do not read"), between
 * the core and the container's observer ({@code sink}):
 * <ul>
 * <li>{@link #write} queues a record and returns at once: the emit cycle never waits for this client. One
 *     writer thread of {@link Streams} at a time takes the queue to the sink, in order, and ends the
 *     response ({@code sink.complete()}) only after the last record;</li>
 * <li>when the bytes queued and not yet taken by the sink pass the backlog bound after a write, the stream
 *     is cut: nothing more is written (the client would not read it), the sink closes the connection at
 *     once ({@link RequestObserver#abort}), the write fails so the core drops the stream from every list,
 *     and /status counts it;</li>
 * <li>a write the sink failed (the client left) fails every later write, so the core drops the stream.</li>
 * </ul>
 * Records are ASCII (names are [A-Za-z0-9_-], the rest JSON punctuation and digits), so a record's length
 * in chars is its length in bytes.
 */
final class Outbox implements RequestObserver {
    private final RequestObserver sink;
    private final Streams streams;
    private final ArrayDeque<String> queue = new ArrayDeque<>(); // guarded by this
    private long unsent; // guarded by this: bytes queued or being written
    private boolean draining; // guarded by this: a writer thread owns the sink
    private boolean ending; // guarded by this: complete() was called
    private boolean ended; // guarded by this: sink.complete() was called
    private boolean failed; // guarded by this: cut, or a write failed; nothing more is written

    Outbox(RequestObserver sink, Streams streams) {
        this.sink = sink;
        this.streams = streams;
    }

    @Override
    public void write(String text) throws IOException {
        boolean start;
        boolean over;
        synchronized (this) {
            if (failed || ending) {
                throw new IOException("the stream's client is gone");
            }
            queue.addLast(text);
            unsent += text.length();
            over = unsent > streams.backlogBytes();
            if (over) {
                failed = true;
                queue.clear();
            }
            start = !over && claimDrain();
        }
        if (over) {
            cut();
        }
        if (start) {
            streams.write(this::drain);
        }
    }

    /** The client does not read: counted, its connection closed at once, and the core told by the failed write. */
    private void cut() throws IOException {
        streams.dropped();
        sink.abort();
        throw new IOException("cut: more than " + streams.backlogBytes() + " bytes unsent (PB_STREAM_BACKLOG_BYTES)");
    }

    @Override
    public void clearing(String reason) {
        sink.clearing(reason);
    }

    /** After the last record: the sink's end follows it, on the writer. */
    @Override
    public void complete() {
        boolean start;
        synchronized (this) {
            ending = true;
            start = claimDrain();
        }
        if (start) {
            streams.write(this::drain);
        }
    }

    /** Under this object's lock: true if the caller is to hand the queue to a writer (none has it yet). */
    private boolean claimDrain() {
        if (draining) {
            return false;
        }
        draining = true;
        return true;
    }

    /** On a writer thread: every queued record in order, then the end once asked for; returns when idle. */
    private void drain() {
        while (true) {
            String text;
            synchronized (this) {
                text = failed ? null : queue.pollFirst();
                if (text == null && (!ending || ended)) {
                    draining = false;
                    return;
                }
                if (text == null) {
                    ended = true;
                }
            }
            if (text == null) {
                end();
                continue;
            }
            send(text);
        }
    }

    private void end() {
        try {
            sink.complete();
        } catch (RuntimeException e) {
            // a container that cannot end the response any more: nothing is left to end
        }
    }

    private void send(String text) {
        boolean ok = false;
        try {
            sink.write(text);
            ok = true;
        } catch (IOException | RuntimeException e) {
            // The client left: the core's next write fails and drops the stream; the end still comes.
        }
        synchronized (this) {
            unsent = Math.max(0, unsent - text.length());
            if (!ok) {
                failed = true;
                queue.clear();
            }
        }
    }
}
