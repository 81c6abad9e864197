package pushbench.core;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;

/**
 * Reads a request body with the container's blocking reads, within the rules of {@link Bodies}:
 * <ol>
 * <li>what arrived with the request's head is taken without waiting: a body of known length that is
 *     whole by then (every load generator's) never waits and never takes a waiting place;</li>
 * <li>a body still on its way takes a waiting place (none free: 503 at once), and each read waits at most
 *     what is left of the deadline, through the container's {@link ReadWait} (past it: 408);</li>
 * <li>more than 16 KiB is refused (413), a body the container cannot decode (malformed chunked encoding)
 *     with 400.</li>
 * </ol>
 * A read that the connector's own timeout ends before the deadline (a stall longer than connectionTimeout)
 * is a 408 too: the deadline only ever shortens the connector's wait.
 */
final class BodyReader {
    private final InputStream in;
    private final int contentLength;
    private final long deadlineNanos;
    private final Bodies bodies;
    private final ReadWait wait;
    private final BodyBuffer buffer = new BodyBuffer();
    private final byte[] chunk;

    /** @param contentLength the declared length, or -1 (chunked) */
    BodyReader(InputStream in, int contentLength, long startNanos, Bodies bodies, ReadWait wait) {
        this.in = in;
        this.contentLength = contentLength;
        this.deadlineNanos = startNanos + bodies.deadlineMillis() * 1_000_000;
        this.bodies = bodies;
        this.wait = wait;
        this.chunk = BodyBuffer.chunkFor(contentLength);
    }

    byte[] read() throws IOException, BadInput {
        if (contentLength > BodyBuffer.LIMIT) {
            throw BodyBuffer.tooLargeError();
        }
        if (takeArrived()) {
            return buffer.toByteArray();
        }
        if (!bodies.enterWait()) {
            throw bodies.busy();
        }
        int connectorWait = wait.current();
        try {
            readRest(connectorWait);
        } finally {
            bodies.leaveWait();
            wait.set(connectorWait);
        }
        return buffer.toByteArray();
    }

    /** Reads what is already here without blocking; true if that is the whole body. */
    private boolean takeArrived() throws IOException, BadInput {
        if (contentLength < 0) {
            return false; // chunked: only the terminating chunk tells the end, and reading it may block
        }
        try {
            while (buffer.size() < contentLength && in.available() > 0) {
                int n = in.read(chunk, 0, Math.min(chunk.length, contentLength - buffer.size()));
                if (n < 0) {
                    break;
                }
                append(n);
            }
        } catch (IOException e) {
            throw Bodies.malformed(String.valueOf(e.getMessage()));
        }
        return buffer.size() >= contentLength;
    }

    private void readRest(int connectorWait) throws IOException, BadInput {
        while (contentLength < 0 || buffer.size() < contentLength) {
            long leftNanos = deadlineNanos - System.nanoTime();
            if (leftNanos <= 0) {
                throw bodies.late();
            }
            wait.set(Bodies.waitMillis((leftNanos + 999_999) / 1_000_000, connectorWait));
            int n;
            try {
                n = in.read(chunk);
            } catch (SocketTimeoutException e) {
                throw bodies.late();
            } catch (IOException e) {
                throw Bodies.malformed(String.valueOf(e.getMessage()));
            }
            if (n < 0) {
                return;
            }
            append(n);
        }
    }

    private void append(int n) throws BadInput {
        if (!buffer.append(chunk, 0, n)) {
            throw BodyBuffer.tooLargeError();
        }
    }
}
