package pushbench.jmeter;

// The mux engine's waiting connections, by the monotonic ms they wake at (MuxConnection.wakeAt: a pull's
// interval, a backoff; docs/engine.md "The mux engine"): the one due first is taken first. Most are added
// in the order they wake (every pull waits the same interval after its answer), so they go to a FIFO, one
// step to add and one to take; one that wakes before the FIFO's last (a shorter backoff) goes to a heap.
// The earliest is the earlier of the two heads.

import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.function.ToLongFunction;

final class MuxTimers<T> {
  private final ToLongFunction<T> wakeAt;
  private final ArrayDeque<T> inOrder = new ArrayDeque<>();
  private final PriorityQueue<T> others;

  /** wakeAt: when an entry wakes (it does not change while the entry waits). */
  MuxTimers(ToLongFunction<T> wakeAt) {
    this.wakeAt = wakeAt;
    this.others = new PriorityQueue<>(Comparator.comparingLong(wakeAt));
  }

  void add(T c) {
    T last = inOrder.peekLast();
    if (last == null || wakeAt.applyAsLong(c) >= wakeAt.applyAsLong(last)) inOrder.addLast(c); else others.add(c);
  }

  boolean isEmpty() {
    return inOrder.isEmpty() && others.isEmpty();
  }

  /** The earliest to wake, or null. */
  T peek() {
    T a = inOrder.peekFirst();
    T b = others.peek();
    if (a == null) return b;
    return b == null || wakeAt.applyAsLong(a) <= wakeAt.applyAsLong(b) ? a : b;
  }

  /** Takes the earliest to wake, or null. */
  T poll() {
    T first = peek();
    if (first == null) return null;
    return first == inOrder.peekFirst() ? inOrder.pollFirst() : others.poll();
  }

  void clear() {
    inOrder.clear();
    others.clear();
  }
}
