package pushbench.jmeter;

// JUnit of the mux sampler as a JMeter thread calls it, outside JMeter (one thread, shard 0 of 1): one
// summary sample per interval until the one that stops the thread; counts matching the stream log; failed
// answers counted as the summary's errors; a bad property stops the thread with a message naming it; a
// second test after testEnded starts from a new start instant.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.jmeter.samplers.SampleResult;
import org.apache.jmeter.threads.JMeterContextService;
import org.apache.jmeter.threads.JMeterVariables;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MuxSamplerTest {
  @TempDir Path dir;
  private NioServer server;
  private MuxSampler sampler;

  private MuxSampler sampler(int port, Path logDir) {
    MuxSampler s = new MuxSampler();
    s.setName("request");
    s.setHost("127.0.0.1");
    s.setPort(String.valueOf(port));
    s.setBody("{\"type\":\"poll\",\"events\":[\"event1\"],\"duration\":3000}");
    s.setRequestType("poll");
    s.setConnections("20");
    s.setRampup("0.2");
    s.setDuration("0.6");
    s.setResponseTimeout("5000");
    s.setSummaryInterval("200");
    s.setStreamDir(logDir.toString());
    return s;
  }

  @BeforeEach
  void start() throws Exception {
    JMeterContextService.getContext().setVariables(new JMeterVariables());
    server = new NioServer((body, conn, n) -> List.of(NioServer.after(50, n % 10 == 9
        ? NioServer.lengthAnswer(400, "Bad Request", "{\"error\":{\"status\":400}}")
        : NioServer.lengthAnswer(200, "OK", MuxEngineTest.rec(n)))));
    sampler = sampler(server.port(), dir);
  }

  @AfterEach
  void stop() throws Exception {
    sampler.threadFinished();
    sampler.testEnded();
    server.close();
  }

  private static List<SampleResult> runThread(MuxSampler s) {
    List<SampleResult> out = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      SampleResult r = s.sample(null);
      out.add(r);
      if (r.isStopThread()) break;
    }
    return out;
  }

  @Test
  void summariesCountEveryAnswerUntilTheOneThatStopsTheThread() throws Exception {
    List<SampleResult> results = runThread(sampler);
    SampleResult last = results.get(results.size() - 1);
    assertTrue(last.isStopThread());
    assertTrue(results.size() >= 3 && results.size() <= 6, "200 ms summaries over ~650 ms: " + results.size());
    int answers = 0;
    int errors = 0;
    long bytes = 0;
    for (SampleResult r : results) {
      assertEquals("request-summary", r.getSampleLabel());
      assertEquals("200", r.getResponseCode());
      assertTrue(r.getResponseMessage().matches("answers \\d+, errors \\d+, open \\d+, records \\d+, opened \\d+, backoffs \\d+.*"),
          r.getResponseMessage());
      assertTrue(r.getResponseMessage().contains("backoffs " + r.getErrorCount()), "each refused answer backs off: " + r.getResponseMessage());
      assertEquals(r.getErrorCount() == 0, r.isSuccessful());
      if (r.getErrorCount() > 0) {
        assertTrue(r.getResponseMessage().endsWith(", first failure: " + MuxEngine.NOT_ERROR), r.getResponseMessage());
      }
      assertTrue(r.getTime() <= 400, "an interval of at most the summary interval: " + r.getTime());
      answers += r.getSampleCount();
      errors += r.getErrorCount();
      bytes += r.getBytesAsLong();
    }
    assertEquals(server.requests.get(), answers);
    assertEquals(answers / 10, errors, "every tenth answer is a 400");
    assertTrue(bytes > (long) answers * 60, "the bytes received, headers and bodies: " + bytes);
    assertTrue(sampler.sample(null).isStopThread(), "called again: stops again");
    sampler.testEnded();
    List<String[]> ends = Logs.kind(Logs.lines(dir), "E");
    assertEquals(answers, ends.size());
    assertEquals(errors, ends.stream().filter(e -> e[4].equals("0")).count());
  }

  @Test
  void aSecondTestAfterTestEndedStartsAfresh() throws Exception {
    runThread(sampler);
    sampler.threadFinished();
    sampler.testEnded();
    Thread.sleep(700);   // longer than the duration: a start instant kept from the first test would end the second at once
    int before = server.requests.get();
    MuxSampler second = sampler(server.port(), dir.resolve("second"));
    List<SampleResult> results = runThread(second);
    second.threadFinished();
    assertTrue(results.size() >= 3, "ran its own duration: " + results.size() + " summaries");
    assertTrue(server.requests.get() - before >= 20 * 3, "polled again");
    assertEquals(server.requests.get() - before, results.stream().mapToInt(SampleResult::getSampleCount).sum());
  }

  @Test
  void aBadPropertyFailsOnceAndStopsTheThread() {
    sampler.setRequestType("stream");
    SampleResult r = sampler.sample(null);
    assertFalse(r.isSuccessful());
    assertTrue(r.isStopThread());
    assertTrue(r.getResponseMessage().contains("requestType"), r.getResponseMessage());
    assertEquals(0, server.accepted.get());
    sampler = sampler(server.port(), dir);
    sampler.setConnections("0");
    assertTrue(sampler.sample(null).getResponseMessage().contains("connections"));
  }

  @Test
  void beanInfoAndItsTextsDescribeEveryProperty() {
    java.util.ResourceBundle texts = java.util.ResourceBundle.getBundle(MuxSampler.class.getName() + "Resources", java.util.Locale.ROOT);
    java.util.Set<String> names = new java.util.TreeSet<>();
    for (java.beans.PropertyDescriptor p : new MuxSamplerBeanInfo().getPropertyDescriptors()) {
      if (p.getWriteMethod() == null || !RequestSampler.class.isAssignableFrom(p.getWriteMethod().getDeclaringClass())) continue;
      names.add(p.getName());
      assertFalse(texts.getString(p.getName() + ".displayName").isBlank());
      assertFalse(texts.getString(p.getName() + ".shortDescription").isBlank());
    }
    assertEquals(new java.util.TreeSet<>(List.of("host", "port", "method", "path", "contentType", "body", "connectTimeout",
        "responseTimeout", "streamDir", "rotateMegabytes", "connections", "rampup", "duration", "requestType",
        "pullInterval", "failOnTimeout", "churn", "summaryInterval", "target", "tlsPort", "tlsCa")), names);
    for (String group : List.of("server", "request", "load", "log")) assertFalse(texts.getString(group + ".displayName").isBlank());
  }
}
