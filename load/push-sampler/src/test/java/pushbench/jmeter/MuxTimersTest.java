package pushbench.jmeter;

// JUnit of the mux engine's waiting connections (MuxTimers): whatever the order they are added in (mostly
// in wake order as pulls are, with earlier backoffs among them, or at random), interleaved with takes, each
// take is the earliest waiting, as a priority queue by wake time gives them.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.PriorityQueue;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class MuxTimersTest {
  private static long[] waking(long at) {
    return new long[] {at};
  }

  @Test
  void eachTakeIsTheEarliestWaitingWhateverTheOrderAdded() {
    SplittableRandom random = new SplittableRandom(7);
    for (int shape = 0; shape < 3; shape++) {
      MuxTimers<long[]> timers = new MuxTimers<>(t -> t[0]);
      PriorityQueue<Long> expected = new PriorityQueue<>();
      long now = 0;
      for (int step = 0; step < 20_000; step++) {
        now += random.nextInt(3);
        if (random.nextInt(3) > 0) {
          long at = shape == 0 ? now + 1000                                        // pulls: one interval
              : shape == 1 ? now + (random.nextInt(10) == 0 ? random.nextInt(500) : 1000)   // with backoffs
              : random.nextInt(100_000);                                           // any order
          timers.add(waking(at));
          expected.add(at);
        } else if (!expected.isEmpty()) {
          assertEquals(expected.peek(), timers.peek()[0]);
          assertEquals(expected.poll(), timers.poll()[0], "shape " + shape + ", step " + step);
        }
      }
      while (!expected.isEmpty()) assertEquals(expected.poll(), timers.poll()[0]);
      assertTrue(timers.isEmpty());
      assertNull(timers.peek());
      assertNull(timers.poll());
    }
  }
}
