package pushbench.jmeter;

// The push sampler (issue #22; the study's section 3.2 request, read as a stream): one sample is one
// request of the protocol (docs/protocol.md) from the request's first byte to the answer's end, so a comet
// stream is one sample and a poll one sample, as with JMeter's HTTP sampler; success, response code and
// message are given as that sampler gives them (2xx/3xx is success; a network failure is "Non HTTP
// response code: <exception>"). Every record of the answer is stamped on arrival (engine clock, µs) and
// appended to the engine's stream log (StreamLog) as it comes; the sample keeps only the first and the
// last record as its response data, which is what the plan's assertions read. The response timeout is
// the longest silence accepted on the connection (the safety timeout): a stalled stream ends there, failed.
// The variable responseFile is set to <stream dir>/<label>_<sample id>.push, the sample's place in the
// stream log (a time-stamp sample's results.csv row names it in its responseFile column; docs/run-layout.md).
// After a failed request (a network error, a status outside 2xx/3xx) the thread waits before its next one,
// MuxEngine's backoff: BACKOFF_FIRST_MS doubling to BACKOFF_MAX_MS, none again after a good answer, so that a
// failing server is not flooded by threads that spin. The wait is the next sample's idle time (JMeter's
// IdleTime: the backoffs are the samples with one).
// The sample's E line carries its verdict (the 11th field, docs/run-layout.md "Stream logs"), so the stream
// log is the one record of each answer, as with the mux engine, and no results.csv writer listens to the
// push requests (testplan.jmx). JMeter runs the sampler, then its post-processors, then its assertions, then
// notifies the sample listeners in its scope, the sampler itself among them (JMeterThread.executeSamplePackage,
// TestCompiler.saveSamplerConfigs): so sample() keeps the E line's facts, and sampleOccurred writes the line
// when JMeter hands back this sampler's own judged sample (ok: the judged success; failure: the first failed
// assertion's message, else the HTTP or network failure, as the mux engine words them). A sample never
// judged (the thread stopped before its listeners) gets its E line with the sampler's own verdict at the
// thread's next sample or its end.
// Each E line is also counted in the engine's Tally of the sample's label (answers, failed ones, records,
// bytes; the samples open and the threads running), which PushSummarySampler gives JMeter as one summary
// sample a second, as the mux engine does: what run.sh's progress line and the analysis's check of the
// answers' totals read.

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.jmeter.assertions.AssertionResult;
import org.apache.jmeter.samplers.Entry;
import org.apache.jmeter.samplers.SampleEvent;
import org.apache.jmeter.samplers.SampleListener;
import org.apache.jmeter.samplers.SampleResult;
import org.apache.jmeter.testelement.TestStateListener;
import org.apache.jmeter.testelement.ThreadListener;
import org.apache.jmeter.threads.JMeterContextService;
import org.apache.jmeter.threads.JMeterVariables;

public class PushSampler extends RequestSampler implements SampleListener, TestStateListener, ThreadListener {
  private static final long serialVersionUID = 1L;
  /** JMeter variable naming the sample's place in the stream log (results.csv's responseFile column). */
  public static final String RESPONSE_FILE_VARIABLE = "responseFile";


  private transient PushClient client;
  private transient int backoffMs;   // the wait before this thread's next request: 0 after a good answer
  private transient Ending pending;  // the E line of the sample returned last, until JMeter judged it
  private static final ConcurrentHashMap<String, Tally> TALLIES = new ConcurrentHashMap<>();

  /** An E line's facts, known when sample() returns; its verdict comes with the judged sample. */
  private record Ending(StreamLog log, Tally tally, SampleResult result, long micros, long id, String code, int records,
                        long bodyBytes, int cutBytes, long sentMicros, String message, String samplerFailure,
                        long headersMicros) {
    void write(boolean ok, String failure) {
      log.end(micros, id, code, ok, records, bodyBytes, cutBytes, sentMicros, message, failure, headersMicros);
      tally.ended(ok, failure, records, result.getBytesAsLong());
    }
  }

  /**
   * The engine's samples of one label (every push sampler of that name, all threads) since the last summary
   * took them (take()): answers ended (E lines written), failed ones and the first failure, records, bytes
   * received; and now: samples open (B written, E not yet) and threads running (ThreadListener).
   */
  static final class Tally {
    final AtomicInteger open = new AtomicInteger();
    final AtomicInteger threads = new AtomicInteger();
    private final AtomicLong answers = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong records = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicReference<String> firstFailure = new AtomicReference<>();

    void ended(boolean ok, String failure, int n, long received) {
      records.addAndGet(n);
      bytes.addAndGet(received);
      if (!ok) {
        firstFailure.compareAndSet(null, failure);
        errors.incrementAndGet();
      }
      answers.incrementAndGet();   // last: a summary never counts an answer without its error
      open.decrementAndGet();
    }

    /** { answers, errors, records, bytes } since the last take, and the interval's first failure (or null). */
    long[] take(String[] failure) {
      long a = answers.getAndSet(0);
      long e = errors.getAndSet(0);
      failure[0] = firstFailure.getAndSet(null);
      return new long[] {a, e, records.getAndSet(0), bytes.getAndSet(0)};
    }
  }

  /** The engine's tally of the push samples labelled label (created on first use). */
  static Tally tally(String label) {
    return TALLIES.computeIfAbsent(label, k -> new Tally());
  }

  @Override
  public SampleResult sample(Entry entry) {
    endUnjudged();
    long idleMs = backOff();
    SampleResult res = new SampleResult();
    res.setIdleTime(idleMs);
    res.setSampleLabel(getName());
    res.setDataType(SampleResult.TEXT);
    res.setDataEncoding(StandardCharsets.UTF_8.name());
    int portNumber;
    int connectMs;
    int readMs;
    StreamLog log;
    try {
      portNumber = parse("port", port, 1, 65535);
      connectMs = parse("connectTimeout", connectTimeout, 0, Integer.MAX_VALUE);
      readMs = parse("responseTimeout", responseTimeout, 0, Integer.MAX_VALUE);
      log = streamLog();
    } catch (IllegalArgumentException e) {
      res.sampleStart();
      res.sampleEnd();
      return failed(res, e.getClass().getName(), e.getMessage(), new byte[0]);
    }
    long id = log == null ? 0 : log.nextSampleId();
    if (log != null) {
      JMeterVariables vars = JMeterContextService.getContext().getVariables();
      if (vars != null) vars.put(RESPONSE_FILE_VARIABLE, log.directory().resolve(getName() + "_" + id + ".push").toString());
    }
    String thread = Thread.currentThread().getName();   // JMeter names its threads "<group> <g>-<n>"
    if (client == null) client = new PushClient();
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    res.setSamplerData(method + " " + path + "\n\n" + body);
    long startMicros = PushClient.nowMicros();
    if (log != null) {
      log.begin(startMicros, id, thread, getName());
      tally(getName()).open.incrementAndGet();
    }
    res.sampleStart();
    PushClient.Outcome o = client.exchange(host, portNumber, method, path, bytes, contentType, connectMs, readMs,
        log == null ? null : (micros, b, off, len) -> log.record(micros, id, b, off, len));
    res.sampleEnd();
    res.setSentBytes(o.sentBytes);
    res.setHeadersSize((int) Math.min(Integer.MAX_VALUE, o.headerBytes));
    res.setBodySize(o.bodyBytes);
    // The µs stamps and JMeter's ms clock round apart: neither part may exceed the sample's time.
    if (o.connected && o.sendMicros != 0) res.setConnectTime(Math.min(res.getTime(), (o.sendMicros - startMicros) / 1000));
    if (o.headersMicros != 0) res.setLatency(Math.min(res.getTime(), (o.headersMicros - startMicros) / 1000));
    String code;
    boolean ok;
    String message;
    String samplerFailure;   // as the mux engine words it: the network error, else the HTTP status; '' when ok
    if (o.error != null) {
      byte[] digest = o.digest();
      String text = o.error.toString();
      byte[] errorText = text.getBytes(StandardCharsets.UTF_8);
      byte[] data = new byte[digest.length + (digest.length > 0 ? 1 : 0) + errorText.length];
      System.arraycopy(digest, 0, data, 0, digest.length);
      if (digest.length > 0) data[digest.length] = '\n';
      System.arraycopy(errorText, 0, data, data.length - errorText.length, errorText.length);
      failed(res, o.error.getClass().getName(), o.error.getMessage(), data);
      code = res.getResponseCode();
      ok = false;
      message = res.getResponseMessage();
      samplerFailure = o.error.toString();
    } else {
      code = String.valueOf(o.status);
      ok = o.status >= 200 && o.status <= 399;
      message = o.reason;
      res.setResponseCode(code);
      res.setResponseMessage(o.reason);
      res.setContentType(o.contentType);
      res.setResponseData(o.digest());
      res.setSuccessful(ok);
      samplerFailure = ok ? "" : MuxEngine.httpStatusFailure(o.status, o.reason);
    }
    if (log != null) {
      pending = new Ending(log, tally(getName()), res, o.endMicros, id, code, o.records, o.bodyBytes, o.cutBytes, o.sendMicros, message,
          samplerFailure, o.headersMicros);
    }
    backoffMs = ok ? 0 : backoffMs == 0 ? MuxEngine.BACKOFF_FIRST_MS : Math.min(MuxEngine.BACKOFF_MAX_MS, backoffMs * 2);
    return res;
  }

  // ---- the verdict: JMeter hands back the judged sample ---------------------------------------------------

  /** Writes the E line of this sampler's own sample, judged; samples of other samplers in scope are not its. */
  @Override
  public void sampleOccurred(SampleEvent e) {
    Ending p = pending;
    if (p == null || e.getResult() != p.result()) return;
    pending = null;
    p.write(p.result().isSuccessful(), failureOf(p.result(), p.samplerFailure()));
  }

  @Override public void sampleStarted(SampleEvent e) { /* the B line is written by sample() */ }

  @Override public void sampleStopped(SampleEvent e) { /* nothing */ }

  /**
   * The E line's failure field of a judged sample: '' when it succeeded; else the first failed assertion's
   * message (what results.csv's failureMessage gave); else the sampler's own failure (samplerFailure).
   */
  static String failureOf(SampleResult judged, String samplerFailure) {
    if (judged.isSuccessful()) return "";
    for (AssertionResult a : judged.getAssertionResults()) {
      String m = a.getFailureMessage();
      if ((a.isFailure() || a.isError()) && m != null && !m.isEmpty()) return m;
    }
    return samplerFailure.isEmpty() ? "failed" : samplerFailure;
  }

  // The sample returned last was never judged (the thread stopped before JMeter notified its listeners):
  // its E line with the sampler's own verdict.
  private void endUnjudged() {
    Ending p = pending;
    if (p == null) return;
    pending = null;
    p.write(p.samplerFailure().isEmpty(), p.samplerFailure());
  }

  /** Waits this thread's backoff (none after a good answer); returns the ms waited. An interrupt (the test
   *  stopping) ends the wait. */
  private long backOff() {
    if (backoffMs == 0) return 0;
    long from = System.nanoTime();
    try {
      Thread.sleep(backoffMs);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return (System.nanoTime() - from) / 1_000_000;
  }

  private static SampleResult failed(SampleResult res, String exception, String message, byte[] data) {
    res.setResponseCode("Non HTTP response code: " + exception);
    res.setResponseMessage("Non HTTP response message: " + message);
    res.setResponseData(data);
    res.setSuccessful(false);
    return res;
  }

  private static int parse(String what, String value, int min, int max) {
    String v = value == null ? "" : value.trim();
    long n;
    try { n = Long.parseLong(v); } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " is not a whole number: '" + v + "'");
    }
    if (n < min || n > max) throw new IllegalArgumentException(what + " out of range " + min + ".." + max + ": " + n);
    return (int) n;
  }


  // ---- test and thread life ----------------------------------------------------------------------------

  /** A new test counts from zero (logs open on first use). */
  @Override public void testStarted() { TALLIES.clear(); }

  @Override public void testStarted(String host) { testStarted(); }

  @Override public void testEnded() { StreamLog.closeAll(); }

  @Override public void testEnded(String host) { testEnded(); }

  /** The connection opens with the first sample; the thread counts as running (Tally.threads). */
  @Override public void threadStarted() { tally(getName()).threads.incrementAndGet(); }

  @Override
  public void threadFinished() {
    endUnjudged();
    tally(getName()).threads.decrementAndGet();
    if (client != null) client.close();
    client = null;
  }

  // ---- TestBean properties (PushSamplerBeanInfo) --------------------------------------------------------

}
