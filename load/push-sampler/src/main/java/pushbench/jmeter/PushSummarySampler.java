package pushbench.jmeter;

// The push sampler's summaries (docs/run-layout.md "Stream logs"): the push sampler's answers are recorded
// in the stream log only, so that JMeter's results.csv counts them as it counts the mux engine's, one thread
// per engine (testplan.jmx's "Request summary (push)" group) gives JMeter one summary sample every `interval`
// ms of the engine's push samples labelled as this sampler (PushSampler.Tally): label <name>-summary,
// sampleCount = answers whose E line was written in the interval, errorCount = the failed ones, bytes =
// bytes received, responseMessage "answers <n>, errors <n>, open <n>, records <n>[, first failure: <why>]"
// (open: samples begun and not ended at its end), the mux engine's summary's words (lib/progress.sh).
// The thread stops once `window` seconds (the Request group's duration: it starts no request after) have
// passed since its first sample and no push thread of that label runs any more, or when JMeter stops the
// test: its last summary counts every answer that ended before.

import org.apache.jmeter.samplers.AbstractSampler;
import org.apache.jmeter.samplers.Entry;
import org.apache.jmeter.samplers.Interruptible;
import org.apache.jmeter.samplers.SampleResult;
import org.apache.jmeter.samplers.StatisticalSampleResult;
import org.apache.jmeter.testbeans.TestBean;

public class PushSummarySampler extends AbstractSampler implements TestBean, Interruptible {
  private static final long serialVersionUID = 1L;
  /** The longest nap between looks at the stop conditions, ms. */
  private static final long NAP_MS = 100;

  private String interval = "1000";
  private String window = "60";

  private transient long startMillis;   // the first sample's start (0: none yet)
  private transient long fromMillis;    // the running interval's start
  private transient volatile boolean stopping;

  @Override
  public SampleResult sample(Entry entry) {
    long intervalMs;
    long windowMs;
    try {
      intervalMs = Math.max(1, Long.parseLong(interval.trim()));
      windowMs = Math.max(0, Long.parseLong(window.trim())) * 1000;
    } catch (NumberFormatException e) {
      return invalid("interval and window must be whole numbers: '" + interval + "', '" + window + "'");
    }
    long now = System.currentTimeMillis();
    if (startMillis == 0) {
      startMillis = now;
      fromMillis = now;
    }
    PushSampler.Tally tally = PushSampler.tally(getName());
    long to = fromMillis + intervalMs;
    boolean last = false;
    while (!last) {
      now = System.currentTimeMillis();
      last = stopping || (now - startMillis >= windowMs && tally.threads.get() <= 0);
      if (now >= to) break;
      if (!last) nap(Math.min(NAP_MS, to - now));
    }
    long from = fromMillis;
    fromMillis = Math.max(now, from);
    return summary(tally, from, fromMillis, last);
  }

  // The interval [from, to) of the tally: what ended in it, taken (the next summary counts on from zero).
  private SampleResult summary(PushSampler.Tally tally, long from, long to, boolean last) {
    String[] failure = new String[1];
    long[] t = tally.take(failure);
    StatisticalSampleResult res = new StatisticalSampleResult(from, to - from);
    res.setSampleLabel(getName() + "-summary");
    res.setThreadName(Thread.currentThread().getName());
    res.setSampleCount((int) Math.min(Integer.MAX_VALUE, t[0]));
    res.setErrorCount((int) Math.min(Integer.MAX_VALUE, t[1]));
    res.setBytes(t[3]);
    res.setResponseCode("200");
    res.setSuccessful(t[1] == 0);
    res.setResponseMessage("answers " + t[0] + ", errors " + t[1] + ", open " + Math.max(0, tally.open.get()) + ", records " + t[2]
        + (failure[0] == null ? "" : ", first failure: " + failure[0]));   // no response data: JMeter would count it as bytes
    res.setDataType(SampleResult.TEXT);
    res.setStopThread(last);
    return res;
  }

  private SampleResult invalid(String why) {
    SampleResult res = new SampleResult();
    res.setSampleLabel(getName() + "-summary");
    res.sampleStart();
    res.sampleEnd();
    res.setResponseCode("Non HTTP response code: java.lang.IllegalArgumentException");
    res.setResponseMessage("Non HTTP response message: " + why);
    res.setSuccessful(false);
    res.setStopThread(true);
    return res;
  }

  private void nap(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      stopping = true;
      Thread.currentThread().interrupt();
    }
  }

  /** JMeter stops the test: the running interval ends at once and its summary stops the thread. */
  @Override
  public boolean interrupt() {
    stopping = true;
    return true;
  }

  // ---- TestBean properties (PushSummarySamplerBeanInfo) -------------------------------------------------

  public String getInterval() { return interval; }
  public void setInterval(String v) { interval = v == null ? "" : v; }
  public String getWindow() { return window; }
  public void setWindow(String v) { window = v == null ? "" : v; }
}
