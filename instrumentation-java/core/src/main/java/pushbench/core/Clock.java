package pushbench.core;

/** The server's clock in milliseconds since the epoch; an interface so tests can drive time. */
public interface Clock {
    long millis();

    Clock SYSTEM = System::currentTimeMillis;
}
