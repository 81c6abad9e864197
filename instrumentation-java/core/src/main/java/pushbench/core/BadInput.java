package pushbench.core;

/** A request the protocol rejects; carries the HTTP status (400, 404, 408, 409, 413, 503) and the message for the body. */
public final class BadInput extends Exception {
    private static final long serialVersionUID = 1L;

    private final int status;

    public BadInput(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }

    public Answer toAnswer() {
        return Answer.error(status, getMessage());
    }
}
