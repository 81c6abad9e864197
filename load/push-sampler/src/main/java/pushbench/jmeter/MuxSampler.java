package pushbench.jmeter;

// The multiplexing sampler: one JMeter thread drives thousands of connections with one Selector
// (MuxEngine), instead of one connection per thread (PushSampler). Plan usage: a thread group of K threads
// (no scheduler, loop forever) with this sampler; the engine's `connections` are shared out, connection i
// to thread i mod K. Each call of sample() runs the thread's selector loop for at most summaryInterval ms
// and returns ONE summary sample of that interval (label <name>-summary, sampleCount = answers ended,
// errorCount = failed ones); per-answer results exist only as the stream log's B/R/E lines. When the
// thread's work is done (duration over, every answer ended, or the hard deadline) the summary stops the
// thread. A bad property gives one failed sample naming it and stops the thread.
// Engine-wide state (the start instant every thread's ramp-up counts from, the stream logs, a target run's
// publisher) is reset at testEnded, so a second test in the same JVM starts clean.
// A target run (issue #47, docs/targets.md): `target` is the JMeter property target.spec (base64 of the
// normalized spec; empty: the built-in protocol). Its connections subscribe as the spec says, and the
// first thread to start its engine also starts the engine's one TargetPublisher (the same start instant),
// which testEnded and interrupt stop.
// A built-in run over TLS (docs/engine.md "TLS for the built-in servers"): `tlsPort` (the JMeter property
// tls.port, the TLS front's) and `tlsCa` (tls.ca, base64 of the run's CA PEM); tlsPort 0: plain TCP.

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.jmeter.samplers.Entry;
import org.apache.jmeter.samplers.Interruptible;
import org.apache.jmeter.samplers.SampleResult;
import org.apache.jmeter.samplers.StatisticalSampleResult;
import org.apache.jmeter.testelement.TestStateListener;
import org.apache.jmeter.testelement.ThreadListener;
import org.apache.jmeter.threads.AbstractThreadGroup;
import org.apache.jmeter.threads.JMeterContext;
import org.apache.jmeter.threads.JMeterContextService;

public class MuxSampler extends RequestSampler implements TestStateListener, ThreadListener, Interruptible {
  private static final long serialVersionUID = 1L;
  private static final long UNSET = Long.MIN_VALUE;
  /** The engine-wide start (System.nanoTime() in ms): set by the first sample() of any thread of a test. */
  private static final AtomicLong START = new AtomicLong(UNSET);
  /** A target run's publisher, one per engine: started with the first engine of a test. */
  private static final AtomicReference<TargetPublisher> PUBLISHER = new AtomicReference<>();

  private String connections = "1";
  private String rampup = "0";
  private String duration = "60";
  private String requestType = "comet";
  private String pullInterval = "1000";
  private String failOnTimeout = "false";
  private String summaryInterval = "1000";
  private String churn = "0";
  private String target = "";
  private String tlsPort = "0";
  private String tlsCa = "";

  private transient MuxEngine engine;
  private transient MuxConfig config;
  private transient boolean done;
  private transient int shard = -1;
  private transient int shards = -1;

  @Override
  public SampleResult sample(Entry entry) {
    if (done) return stopped();
    if (engine == null) {
      try {
        config = MuxConfig.parse(getName(), host, port, method, path, contentType, body, connectTimeout,
            responseTimeout, connections, rampup, duration, requestType, pullInterval, failOnTimeout, summaryInterval, churn,
            target);
        config.builtInTls(tlsPort, tlsCa);
        StreamLog log = streamLog();
        resolveShard();
        long start = engineStart();
        engine = new MuxEngine(config, shard, shards, start, log);
        if (config.target != null) startPublisher(config, start, log);
      } catch (Exception e) {   // a bad property, or no selector: the thread cannot run
        done = true;
        return invalid(e);
      }
    }
    MuxEngine.Interval iv = engine.runFor(config.summaryIntervalMs);
    SampleResult res = summary(iv);
    if (engine.finished()) {
      res.setStopThread(true);
      engine.close();
      engine = null;
      done = true;
    }
    return res;
  }

  /** For tests outside JMeter: this thread's share, thread k of K. */
  void setShard(int k, int of) {
    shard = k;
    shards = of;
  }

  // Thread k of K: JMeter's thread number in its group and the group's size; alone outside JMeter.
  private void resolveShard() {
    if (shards > 0) return;
    JMeterContext ctx = JMeterContextService.getContext();
    AbstractThreadGroup group = ctx.getThreadGroup();
    int of = group == null ? 1 : Math.max(1, group.getNumThreads());
    int k = ctx.getThreadNum();
    shards = of;
    shard = k >= 0 && k < of ? k : Math.floorMod(k, of);
  }

  // The engine's one publisher, started by the first thread that gets here.
  private static synchronized void startPublisher(MuxConfig cfg, long start, StreamLog log) throws java.io.IOException {
    if (PUBLISHER.get() != null) return;
    TargetPublisher p = new TargetPublisher(cfg.target, start, cfg.durationMs, cfg.connectTimeoutMs, cfg.responseTimeoutMs, log);
    PUBLISHER.set(p);
    p.start();
  }

  private static void stopPublisher() {
    TargetPublisher p = PUBLISHER.getAndSet(null);
    if (p != null) p.close();
  }

  private static long engineStart() {
    START.compareAndSet(UNSET, System.nanoTime() / 1_000_000);
    return START.get();
  }

  private SampleResult summary(MuxEngine.Interval iv) {
    StatisticalSampleResult res = new StatisticalSampleResult(iv.startMillis, iv.endMillis - iv.startMillis);
    res.setSampleLabel(getName() + "-summary");
    res.setThreadName(Thread.currentThread().getName());
    res.setSampleCount(iv.answers);
    res.setErrorCount(iv.errors);
    res.setBytes(iv.bytes);
    res.setSentBytes(iv.sentBytes);
    res.setResponseCode("200");
    res.setSuccessful(iv.errors == 0);
    String message = "answers " + iv.answers + ", errors " + iv.errors + ", open " + iv.open + ", records " + iv.records
        + ", opened " + iv.opened + ", backoffs " + iv.backoffs + (iv.churned > 0 ? ", churned " + iv.churned : "")
        + tlsText(iv) + tripText(iv)
        + (iv.firstFailure == null ? "" : ", first failure: " + iv.firstFailure);
    res.setResponseMessage(message);   // no response data: JMeter would count its length as the bytes
    res.setDataType(SampleResult.TEXT);
    res.setSamplerData((config.target != null ? "target " + config.target.name + " (" + config.target.transport.name().toLowerCase(java.util.Locale.ROOT)
        + " " + config.target.subscribeUrl.target().text + ")" : config.type.name().toLowerCase(java.util.Locale.ROOT) + " " + config.method + " " + config.path) + ", connections "
        + config.connections + " (thread " + (shard + 1) + " of " + shards + ")\n\n" + config.body);
    return res;
  }

  // The interval's timed sample (docs/engine.md "Sampled trip time"; lib/progress.sh reads it): its p99 in µs,
  // how many it timed and whose clock ("engine clock" or "server clock"); nothing when it timed none.
  static String tripText(MuxEngine.Interval iv) {
    return iv.tripTimed == 0 ? "" : ", trip p99 " + iv.tripP99Micros + " us of " + iv.tripTimed + " timed (" + iv.tripBasis + ")";
  }

  // The interval's TLS counts (docs/engine.md "TLS"): handshakes, resumed, their mean and longest µs, failures by kind.
  static String tlsText(MuxEngine.Interval iv) {
    if (iv.tlsHandshakes == 0 && iv.tlsFailures == null) return "";
    StringBuilder s = new StringBuilder(", tls handshakes ").append(iv.tlsHandshakes);
    if (iv.tlsHandshakes > 0) {
      s.append(" (resumed ").append(iv.tlsResumed).append(", mean ").append(iv.tlsHandshakeMicros / iv.tlsHandshakes)
          .append(" us, max ").append(iv.tlsHandshakeMaxMicros).append(" us)");
    }
    if (iv.tlsFailures != null) iv.tlsFailures.forEach((k, n) -> s.append(", ").append(k).append(": ").append(n));
    return s.toString();
  }

  private SampleResult invalid(Exception e) {
    SampleResult res = new SampleResult();
    res.setSampleLabel(getName() + "-summary");
    res.sampleStart();
    res.sampleEnd();
    res.setResponseCode("Non HTTP response code: " + e.getClass().getName());
    res.setResponseMessage("Non HTTP response message: " + e.getMessage());
    res.setSuccessful(false);
    res.setStopThread(true);
    return res;
  }

  // Called again after the thread was told to stop: an empty summary that stops it again.
  private SampleResult stopped() {
    StatisticalSampleResult res = new StatisticalSampleResult(System.currentTimeMillis(), 0);
    res.setSampleLabel(getName() + "-summary");
    res.setResponseCode("200");
    res.setResponseMessage("done");
    res.setSuccessful(true);
    res.setStopThread(true);
    return res;
  }


  // ---- test and thread life ----------------------------------------------------------------------------

  @Override
  public void testStarted() {
    stopPublisher();
    START.set(UNSET);
  }

  @Override public void testStarted(String host) { testStarted(); }

  @Override
  public void testEnded() {
    stopPublisher();
    START.set(UNSET);
    StreamLog.closeAll();
  }

  @Override public void testEnded(String host) { testEnded(); }

  @Override public void threadStarted() { /* the engine starts with the first sample */ }

  @Override
  public void threadFinished() {
    MuxEngine e = engine;
    engine = null;
    if (e != null) e.close();
  }

  /** JMeter stops the test: the running interval ends at once and its summary stops the thread. */
  @Override
  public boolean interrupt() {
    MuxEngine e = engine;
    if (e != null) e.stop();
    TargetPublisher p = PUBLISHER.get();
    if (p != null) p.close();
    return e != null;
  }

  // ---- TestBean properties (MuxSamplerBeanInfo) --------------------------------------------------------

  public String getConnections() { return connections; }
  public void setConnections(String v) { connections = v; }
  public String getRampup() { return rampup; }
  public void setRampup(String v) { rampup = v; }
  public String getDuration() { return duration; }
  public void setDuration(String v) { duration = v; }
  public String getRequestType() { return requestType; }
  public void setRequestType(String v) { requestType = v; }
  public String getPullInterval() { return pullInterval; }
  public void setPullInterval(String v) { pullInterval = v; }
  public String getFailOnTimeout() { return failOnTimeout; }
  public void setFailOnTimeout(String v) { failOnTimeout = v; }
  public String getSummaryInterval() { return summaryInterval; }
  public void setSummaryInterval(String v) { summaryInterval = v; }
  public String getChurn() { return churn; }
  public void setChurn(String v) { churn = v; }
  public String getTarget() { return target; }
  public void setTarget(String v) { target = v == null ? "" : v; }
  public String getTlsPort() { return tlsPort; }
  public void setTlsPort(String v) { tlsPort = v == null ? "0" : v; }
  public String getTlsCa() { return tlsCa; }
  public void setTlsCa(String v) { tlsCa = v == null ? "" : v; }
}
