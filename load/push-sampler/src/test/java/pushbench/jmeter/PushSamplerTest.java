package pushbench.jmeter;

// JUnit of the push sampler as JMeter runs it (real SampleResult, real JMeter variables) against the
// scripted local server: a comet stream becomes one successful sample whose records are all in the
// engine's stream log with arrival stamps; a 4xx answer fails as with the HTTP sampler; a broken stream
// fails with "Non HTTP response code"; the stream log is one gzip file readable line by line. The E line
// is written when JMeter hands the sampler its judged sample (sampleOccurred, after the assertions), with
// the verdict as its 11th field; a sample never judged gets its own verdict at the thread's next sample.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static pushbench.jmeter.ChunkedServer.CLOSE;
import static pushbench.jmeter.ChunkedServer.END;
import static pushbench.jmeter.ChunkedServer.chunk;
import static pushbench.jmeter.ChunkedServer.chunkedHead;
import static pushbench.jmeter.ChunkedServer.lengthHead;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import org.apache.jmeter.assertions.AssertionResult;
import org.apache.jmeter.samplers.SampleEvent;
import org.apache.jmeter.samplers.SampleResult;
import org.apache.jmeter.threads.JMeterContextService;
import org.apache.jmeter.threads.JMeterVariables;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PushSamplerTest {
  @TempDir Path dir;
  private ChunkedServer server;
  private PushSampler sampler;

  @BeforeEach
  void start() throws Exception {
    server = new ChunkedServer();
    JMeterContextService.getContext().setVariables(new JMeterVariables());
    sampler = new PushSampler();
    sampler.setName("request");
    sampler.setHost("127.0.0.1");
    sampler.setPort(String.valueOf(server.port()));
    sampler.setBody("{\"type\":\"comet\",\"events\":[\"event1\"]}");
    sampler.setResponseTimeout("5000");
    sampler.setStreamDir(dir.toString());
  }

  @AfterEach
  void stop() throws Exception {
    sampler.threadFinished();
    StreamLog.closeAll();
    server.close();
  }

  private List<String[]> logLines() throws Exception {
    sampler.testEnded();   // closes the log: the gzip trailer is written
    List<String[]> out = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) { files = s.sorted().collect(Collectors.toList()); }
    assertEquals(1, files.size(), "one stream log file: " + files);
    assertTrue(files.get(0).getFileName().toString().matches("push-1\\.tsv\\.gz"));
    try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(files.get(0))),
        StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) out.add(line.split("\t", -1));
    }
    return out;
  }

  // JMeter's part after sample(): the assertions' results added (a failed one fails the sample, as
  // JMeterThread.checkAssertion does), then the listeners notified with the judged sample.
  private SampleResult judged(SampleResult res, AssertionResult... assertions) {
    for (AssertionResult a : assertions) {
      res.addAssertionResult(a);
      res.setSuccessful(res.isSuccessful() && !(a.isFailure() || a.isError()));
    }
    sampler.sampleOccurred(new SampleEvent(res, "Request"));
    return res;
  }

  private static AssertionResult failedAssertion(String name, String message) {
    AssertionResult a = new AssertionResult(name);
    a.setFailure(true);
    a.setFailureMessage(message);
    return a;
  }

  @Test
  void cometStreamIsOneSampleWithEveryRecordStampedInTheLog() throws Exception {
    String r1 = "{\"response\":{\"event\":{\"cycle\":1}}}";
    String r2 = "{\"response\":{\"event\":{\"cycle\":2}}}";
    String clear = "{\"response\":{\"clear\":{\"reason\":\"clear\"}}}";
    server.answer(chunkedHead(200, "OK", "application/x-ndjson"), chunk(r1 + "\n"), chunk(r2.substring(0, 5)),
        chunk(r2.substring(5) + "\n" + clear + "\n"), END);
    SampleResult res = judged(sampler.sample(null));
    assertTrue(res.isSuccessful());
    assertEquals("200", res.getResponseCode());
    assertEquals(r1 + "\n" + clear, res.getResponseDataAsString(), "first and last record for the assertions");
    String file = JMeterContextService.getContext().getVariables().get("responseFile");
    assertEquals(dir.resolve("request_1.push").toString(), file);
    List<String[]> lines = logLines();
    assertEquals(5, lines.size());
    assertEquals("B", lines.get(0)[0]);
    assertEquals("1", lines.get(0)[2]);
    assertEquals("request", lines.get(0)[4]);
    long begin = Long.parseLong(lines.get(0)[1]);
    long previous = begin;
    String[] bodies = {r1, r2, clear};
    for (int i = 0; i < 3; i++) {
      String[] r = lines.get(1 + i);
      assertEquals("R", r[0]);
      assertEquals("1", r[2]);
      assertEquals(bodies[i], r[3]);
      long at = Long.parseLong(r[1]);
      assertTrue(at >= previous, "arrivals in order");
      previous = at;
    }
    String[] e = lines.get(4);
    assertEquals(List.of("E", "1", "200", "1", "3"), List.of(e[0], e[2], e[3], e[4], e[5]));
    assertEquals(12, e.length, "the verdict and the head's stamp");
    assertEquals("", e[10], "passed: no failure");
    assertTrue(Long.parseLong(e[8]) >= begin, "send stamp after the sample's start");
    long head = Long.parseLong(e[11]);
    assertTrue(head >= Long.parseLong(e[8]) && head <= Long.parseLong(e[1]), "head read between the send and the end");
    assertTrue(res.getTime() >= 0 && res.getLatency() <= res.getTime());
  }

  @Test
  void clientErrorFailsTheSampleAsTheHttpSamplerDoes() throws Exception {
    String error = "{\"error\":{\"status\":400,\"message\":\"unknown type\"}}";
    server.answer(lengthHead(400, "Bad Request", error, false));
    SampleResult res = judged(sampler.sample(null));
    assertFalse(res.isSuccessful());
    assertEquals("400", res.getResponseCode());
    assertEquals("Bad Request", res.getResponseMessage());
    assertTrue(res.getResponseDataAsString().contains("error"), "the not-error assertion sees the body");
    List<String[]> lines = logLines();
    assertEquals("R", lines.get(1)[0]);
    assertEquals(error, lines.get(1)[3]);
    assertEquals("0", lines.get(2)[4]);
    assertEquals("HTTP status 400 Bad Request", lines.get(2)[10], "no assertion failed: the HTTP failure");
  }

  @Test
  void brokenStreamFailsWithNonHttpCodeAndCountsTheCutBytes() throws Exception {
    server.answer(chunkedHead(200, "OK", "application/x-ndjson"), chunk("{\"response\":{\"ev"), CLOSE);
    SampleResult res = judged(sampler.sample(null));
    assertFalse(res.isSuccessful());
    assertEquals("Non HTTP response code: java.io.EOFException", res.getResponseCode());
    List<String[]> lines = logLines();
    assertEquals(2, lines.size(), "B and E only: the cut record is counted, not logged");
    assertEquals("16", lines.get(1)[7]);
    assertEquals("java.io.EOFException", lines.get(1)[10].split(":")[0], "the network error");
  }

  @Test
  void failedAssertionsGiveTheVerdictAndTheFirstFailedMessage() throws Exception {
    String timeout = "{\"response\":{\"timeout\":{}}}";
    String error = "{\"error\":{\"status\":500,\"message\":\"boom\"}}";
    server.answer(lengthHead(200, "OK", timeout, false));
    AssertionResult passed = new AssertionResult("not error");
    judged(sampler.sample(null), passed,
        failedAssertion("not timeout", "response contains timeout although an event was set"));
    server.answer(lengthHead(200, "OK", error, false));
    judged(sampler.sample(null), failedAssertion("not error", "Test failed: text expected not to contain /error/"),
        failedAssertion("not timeout", "never this one"));
    server.answer(lengthHead(200, "OK", "{\"response\":{}}", false));
    judged(sampler.sample(null), new AssertionResult("not error"));
    List<String[]> ends = logLines().stream().filter((l) -> l[0].equals("E")).collect(Collectors.toList());
    assertEquals(3, ends.size());
    assertEquals(List.of("200", "0", "response contains timeout although an event was set"), List.of(ends.get(0)[3], ends.get(0)[4], ends.get(0)[10]));
    assertEquals(List.of("0", "Test failed: text expected not to contain /error/"), List.of(ends.get(1)[4], ends.get(1)[10]));
    assertEquals(List.of("1", ""), List.of(ends.get(2)[4], ends.get(2)[10]));
  }

  @Test
  void onlyItsOwnSampleEndsItsLineAndAnUnjudgedOneKeepsTheSamplersVerdict() throws Exception {
    server.answer(lengthHead(404, "Not Found", "{}", false));
    SampleResult own = sampler.sample(null);
    SampleResult other = new SampleResult();   // another sampler in the same scope
    other.setSuccessful(true);
    sampler.sampleOccurred(new SampleEvent(other, "Request"));
    server.answer(lengthHead(200, "OK", "{\"response\":{}}", false));
    judged(sampler.sample(null));   // the first was never judged: its line is written now
    judged(own);                    // too late: already written
    server.answer(lengthHead(200, "OK", "{\"response\":{}}", false));
    sampler.sample(null);
    sampler.threadFinished();       // the last, never judged, at the thread's end
    List<String[]> ends = logLines().stream().filter((l) -> l[0].equals("E")).collect(Collectors.toList());
    assertEquals(List.of("1", "2", "3"), ends.stream().map((l) -> l[2]).collect(Collectors.toList()), "one E line per sample");
    assertEquals(List.of("404", "0", "HTTP status 404 Not Found"), List.of(ends.get(0)[3], ends.get(0)[4], ends.get(0)[10]));
    assertEquals(List.of("1", ""), List.of(ends.get(1)[4], ends.get(1)[10]));
    assertEquals(List.of("1", ""), List.of(ends.get(2)[4], ends.get(2)[10]));
  }

  @Test
  void failedRequestsBackOffDoublingAndAGoodAnswerEndsIt() throws Exception {
    server.close();   // nothing listens on the port: every connection is refused
    long[] idle = new long[4];
    for (int i = 0; i < 4; i++) {
      SampleResult res = sampler.sample(null);
      assertFalse(res.isSuccessful());
      assertEquals("Non HTTP response code: java.net.ConnectException", res.getResponseCode());
      idle[i] = res.getIdleTime();
    }
    assertEquals(0, idle[0], "the first request goes at once");
    for (int i = 1; i < 4; i++) {
      long want = MuxEngine.BACKOFF_FIRST_MS << (i - 1);   // 100, 200, 400 ms
      assertTrue(idle[i] >= want && idle[i] < want + 1000, "backoff " + i + ": " + idle[i] + " ms, want " + want);
    }
    server = new ChunkedServer();
    sampler.setPort(String.valueOf(server.port()));
    server.answer(lengthHead(200, "OK", "{\"response\":{}}", false));
    SampleResult good = sampler.sample(null);
    assertTrue(good.isSuccessful(), good.getResponseCode());
    assertTrue(good.getIdleTime() >= 800, "waited its backoff first: " + good.getIdleTime());
    server.answer(lengthHead(200, "OK", "{\"response\":{}}", false));
    assertEquals(0, sampler.sample(null).getIdleTime(), "a good answer ends the backoff");
  }

  @Test
  void summariesCountTheEndedAnswersAndStopOnceNoThreadRuns() throws Exception {
    sampler.testStarted();   // a new test: the engine's tallies from zero
    sampler.threadStarted();
    PushSummarySampler summary = new PushSummarySampler();
    summary.setName("request");
    summary.setInterval("200");
    summary.setWindow("0");
    server.answer(lengthHead(200, "OK", "{\"response\":{}}", false));
    judged(sampler.sample(null));
    server.answer(lengthHead(200, "OK", "{\"response\":{\"timeout\":{}}}", false));
    judged(sampler.sample(null), failedAssertion("not timeout", "response contains timeout although an event was set"));
    server.answer(lengthHead(200, "OK", "{\"response\":{}}", false));
    sampler.sample(null);   // ended, not yet judged: open, not counted
    long before = System.currentTimeMillis();
    SampleResult first = summary.sample(null);
    assertEquals("request-summary", first.getSampleLabel());
    assertEquals(List.of(2, 1), List.of(first.getSampleCount(), first.getErrorCount()));
    assertEquals("answers 2, errors 1, open 1, records 2, first failure: response contains timeout although an event was set",
        first.getResponseMessage());
    assertFalse(first.isSuccessful());
    assertFalse(first.isStopThread(), "a push thread still runs");
    // results.csv's timeStamp (JMeter's stamp) is the interval's start, elapsed its length, as the mux engine's
    assertTrue(first.getTime() >= 150 && first.getTimeStamp() >= before - 5, "one interval: " + first.getTime() + " ms");
    sampler.threadFinished();   // writes the unjudged one's E line: counted in the next summary, the last
    SampleResult last = summary.sample(null);
    assertEquals(List.of(1, 0), List.of(last.getSampleCount(), last.getErrorCount()));
    assertEquals("answers 1, errors 0, open 0, records 1", last.getResponseMessage());
    assertTrue(last.isStopThread(), "the window is over and no push thread runs");
    assertEquals(first.getTimeStamp() + first.getTime(), last.getTimeStamp(), "intervals follow each other");
    List<String[]> lines = logLines();
    assertEquals(3, lines.stream().filter((l) -> l[0].equals("E")).count(), "as many E lines as the summaries count");
  }

  @Test
  void aSummaryStopsAtOnceWhenTheTestStops() {
    PushSummarySampler summary = new PushSummarySampler();
    summary.setName("other");
    summary.setInterval("60000");
    summary.setWindow("3600");
    summary.interrupt();
    SampleResult res = summary.sample(null);
    assertTrue(res.isStopThread());
    assertTrue(res.getTime() < 1000, res.getTime() + " ms");
  }

  @Test
  void badPortFailsWithoutANetworkAttempt() {
    sampler.setPort("eighty");
    SampleResult res = sampler.sample(null);
    assertFalse(res.isSuccessful());
    assertTrue(res.getResponseMessage().contains("port"));
    assertEquals(0, server.connections.get());
  }
}
