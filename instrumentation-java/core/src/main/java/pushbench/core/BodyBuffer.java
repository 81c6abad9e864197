package pushbench.core;

import java.io.ByteArrayOutputStream;

/** Collects a request body that may arrive in pieces, refusing more than the protocol's 16 KiB. */
public final class BodyBuffer {
    public static final int LIMIT = 16384;

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    private boolean tooLarge;

    /** Returns false (and keeps nothing more) once the body has grown past the limit. */
    public boolean append(byte[] data, int offset, int length) {
        if (tooLarge || bytes.size() + length > LIMIT) {
            tooLarge = true;
            return false;
        }
        bytes.write(data, offset, length);
        return true;
    }

    public boolean tooLarge() {
        return tooLarge;
    }

    public int size() {
        return bytes.size();
    }

    public byte[] toByteArray() {
        return bytes.toByteArray();
    }

    /**
     * A read buffer for a body of the given Content-Length (-1 or 0: unknown): a push request's body is
     * tens of bytes, so it gets a chunk of its own size, not a fixed 4 KiB per read.
     */
    public static byte[] chunkFor(int contentLength) {
        return new byte[contentLength > 0 && contentLength < 4096 ? contentLength : 4096];
    }

    /** The 413 answer every handler sends for an oversized body. */
    public static BadInput tooLargeError() {
        return new BadInput(413, "body larger than " + LIMIT + " bytes");
    }
}
