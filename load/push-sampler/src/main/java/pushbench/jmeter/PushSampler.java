package pushbench.jmeter;

// The push sampler (issue #22; the study's section 3.2 request, read as a stream): one sample is one
// request of the protocol (docs/protocol.md) from the request's first byte to the answer's end, so a comet
// stream is one sample and a poll one sample, as with JMeter's HTTP sampler; success, response code and
// message are given as that sampler gives them (2xx/3xx is success; a network failure is "Non HTTP
// response code: <exception>"). Every record of the answer is stamped on arrival (engine clock, µs) and
// appended to the engine's stream log (StreamLog) as it comes; the sample keeps only the first and the
// last record as its response data, which is what the plan's assertions read. The response timeout is
// the longest silence accepted on the connection (the safety timeout): a stalled stream ends there, failed.
// The variable responseFile is set to <stream dir>/<label>_<sample id>.push, the name results.csv's
// responseFile column gives the sample (docs/run-layout.md).
// After a failed request (a network error, a status outside 2xx/3xx) the thread waits before its next one,
// MuxEngine's backoff: BACKOFF_FIRST_MS doubling to BACKOFF_MAX_MS, none again after a good answer, so that a
// failing server is not flooded by threads that spin. The wait is the next sample's idle time (results.csv's
// IdleTime column: the backoffs are the samples with one).

import java.nio.charset.StandardCharsets;

import org.apache.jmeter.samplers.Entry;
import org.apache.jmeter.samplers.SampleResult;
import org.apache.jmeter.testelement.TestStateListener;
import org.apache.jmeter.testelement.ThreadListener;
import org.apache.jmeter.threads.JMeterContextService;
import org.apache.jmeter.threads.JMeterVariables;

public class PushSampler extends RequestSampler implements TestStateListener, ThreadListener {
  private static final long serialVersionUID = 1L;
  /** JMeter variable naming the sample's place in the stream log (results.csv's responseFile column). */
  public static final String RESPONSE_FILE_VARIABLE = "responseFile";


  private transient PushClient client;
  private transient int backoffMs;   // the wait before this thread's next request: 0 after a good answer

  @Override
  public SampleResult sample(Entry entry) {
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
    if (log != null) log.begin(startMicros, id, thread, getName());
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
    } else {
      code = String.valueOf(o.status);
      ok = o.status >= 200 && o.status <= 399;
      message = o.reason;
      res.setResponseCode(code);
      res.setResponseMessage(o.reason);
      res.setContentType(o.contentType);
      res.setResponseData(o.digest());
      res.setSuccessful(ok);
    }
    if (log != null) log.end(o.endMicros, id, code, ok, o.records, o.bodyBytes, o.cutBytes, o.sendMicros, message);
    backoffMs = ok ? 0 : backoffMs == 0 ? MuxEngine.BACKOFF_FIRST_MS : Math.min(MuxEngine.BACKOFF_MAX_MS, backoffMs * 2);
    return res;
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

  @Override public void testStarted() { /* logs open on first use */ }

  @Override public void testStarted(String host) { testStarted(); }

  @Override public void testEnded() { StreamLog.closeAll(); }

  @Override public void testEnded(String host) { testEnded(); }

  @Override public void threadStarted() { /* the connection opens with the first sample */ }

  @Override
  public void threadFinished() {
    if (client != null) client.close();
    client = null;
  }

  // ---- TestBean properties (PushSamplerBeanInfo) --------------------------------------------------------

}
