package pushbench.jmeter;

// JUnit of a whole target run inside one engine, as a JMeter thread drives MuxSampler (outside JMeter):
// a small pub/sub server (below: PUT/POST /pub/<channel> writes the body as one line to every GET
// /sub/<channel> stream held open) gets the engine's publishes and fans them out to the engine's own
// subscribers, so the stream log holds both sides of docs/targets.md "Inside": each subscriber's messages
// are its channel's publishes (connection n on channel (n - 1) mod channels), in order, each arriving after
// the {{sentUs}} it carries; each publish one B/E sample. The publisher is the engine's one (several
// threads, one publisher) and is gone after testEnded. A bad target.spec is one failed summary naming it.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.jmeter.samplers.SampleResult;
import org.apache.jmeter.threads.JMeterContextService;
import org.apache.jmeter.threads.JMeterVariables;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TargetRunTest {
  private static final Pattern MESSAGE = Pattern.compile("\\{\"ch\":\"run1-e1-(\\d+)\",\"seq\":(\\d+),\"sentUs\":(\\d+)\\}");

  /** Publishes to a channel go out as one line to every stream held on it (chunked); TestServer: a thread per connection. */
  static final class PubSubServer extends TestServer {
    private final Map<String, List<OutputStream>> streams = new ConcurrentHashMap<>();

    PubSubServer() throws IOException {
      start("pubsub");
    }

    @Override
    void serve(Socket s, InputStream in, OutputStream out, int connection) throws IOException {
      for (;;) {
        String head = readHead(in);
        if (head == null) return;
        String[] line = head.substring(0, head.indexOf("\r\n")).split(" ");
        String path = line[1];
        if (line[0].equals("GET") && path.startsWith("/sub/")) {
          synchronized (out) {
            send(out, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n");
          }
          streams.computeIfAbsent(path.substring(5), k -> new CopyOnWriteArrayList<>()).add(out);
          while (in.read() >= 0) { /* held until the client closes it */ }
          return;
        }
        byte[] body = readBody(in, head);
        String channel = path.substring(5, path.indexOf('?') < 0 ? path.length() : path.indexOf('?'));
        byte[] chunk = (Integer.toHexString(body.length + 1) + "\r\n" + new String(body, StandardCharsets.UTF_8) + "\n\r\n")
            .getBytes(StandardCharsets.UTF_8);
        for (OutputStream sub : streams.getOrDefault(channel, List.of())) {
          try {
            synchronized (sub) {
              send(sub, chunk);
            }
          } catch (IOException gone) {
            streams.get(channel).remove(sub);
          }
        }
        send(out, "HTTP/1.1 204 No Content\r\n\r\n");
      }
    }
  }

  @TempDir Path dir;
  private PubSubServer server;

  @BeforeEach
  void start() throws IOException {
    JMeterContextService.getContext().setVariables(new JMeterVariables());
    server = new PubSubServer();
  }

  @AfterEach
  void stop() throws Exception {
    new MuxSampler().testEnded();
    server.close();
  }

  private MuxSampler sampler(String target) {
    MuxSampler s = new MuxSampler();
    s.setName("request");
    s.setHost("127.0.0.1");
    s.setPort("9");                 // the built-in server's: a target run's is its spec's
    s.setMethod("POST");
    s.setRequestType("comet");      // what the plan derives for a stream: the spec's transport decides
    s.setConnections("4");
    s.setRampup("0");
    s.setDuration("1.5");
    s.setResponseTimeout("10000");
    s.setSummaryInterval("500");
    s.setStreamDir(dir.toString());
    s.setTarget(target);
    return s;
  }

  private String spec() {
    String p = "http://127.0.0.1:" + server.port();
    return TargetSpecTest.base64("{\"name\":\"pubsub\",\"transport\":\"stream\",\"intervalMs\":0,"
        + "\"subscribe\":{\"url\":\"" + p + "/sub/{{channel}}\",\"headers\":[],\"send\":null,\"framing\":{\"kind\":\"line\"},\"cursor\":[]},"
        + "\"publish\":{\"method\":\"POST\",\"url\":\"" + p + "/pub/{{channel}}?seq={{seq}}\",\"headers\":[[\"Content-Type\",\"application/json\"]],"
        + "\"body\":\"{\\\"ch\\\":\\\"{{channel}}\\\",\\\"seq\\\":{{seq}},\\\"sentUs\\\":{{sentUs}}}\"},"
        + "\"channels\":2,\"rate\":10,\"drainMs\":300,\"channelPrefix\":\"run1-e1-\"}");
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

  private static boolean publisherAlive() {
    return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith("pushbench-publisher") && t.isAlive());
  }

  @Test
  void theEnginesSubscribersGetWhatItsPublisherSentOnTheirChannels() throws Exception {
    MuxSampler a = sampler(spec());
    MuxSampler b = sampler(spec());
    a.setShard(0, 2);
    b.setShard(1, 2);
    a.testStarted();
    Thread other = new Thread(() -> runThread(b));
    other.start();
    List<SampleResult> results = runThread(a);
    other.join(10_000);
    for (SampleResult r : results) assertTrue(r.isSuccessful(), r.getResponseMessage());
    assertTrue(results.get(0).getSamplerData().startsWith("target pubsub (stream /sub/{{channel}})"), results.get(0).getSamplerData());
    a.threadFinished();
    b.threadFinished();
    a.testEnded();
    assertFalse(publisherAlive(), "no publisher outlives the test");

    List<String[]> lines = Logs.lines(dir);
    Map<String, String> threadOf = new HashMap<>();
    for (String[] l : Logs.kind(lines, "B")) threadOf.put(l[2], l[3]);
    List<String[]> publishEnds = new ArrayList<>();
    Map<String, String[]> subscriptionEnds = new HashMap<>();
    for (String[] e : Logs.kind(lines, "E")) {
      if (threadOf.get(e[2]).startsWith("Publish ")) publishEnds.add(e); else subscriptionEnds.put(e[2], e);
    }
    assertEquals(24, publishEnds.size(), "12 a channel: due every 100 ms before 1.5 s - 0.3 s, on one publisher");
    for (String[] e : publishEnds) assertEquals("204", e[3]);
    assertEquals(4, subscriptionEnds.size(), "one subscription per connection");
    for (String[] e : subscriptionEnds.values()) assertEquals(MuxEngine.END_OF_TEST, e[9]);

    Map<String, List<long[]>> got = new HashMap<>();
    for (String[] r : Logs.kind(lines, "R")) {
      Matcher m = MESSAGE.matcher(r[3]);
      assertTrue(m.matches(), r[3]);
      int n = Integer.parseInt(threadOf.get(r[2]).replace("Request 1-", ""));
      assertEquals((n - 1) % 2, Integer.parseInt(m.group(1)), "connection " + n + " on channel (n - 1) mod 2");
      long arrived = Long.parseLong(r[1]);
      long sent = Long.parseLong(m.group(3));
      assertTrue(arrived >= sent, "arrived after it was sent: " + (arrived - sent) + " µs");
      got.computeIfAbsent(threadOf.get(r[2]), k -> new ArrayList<>()).add(new long[] {Long.parseLong(m.group(2))});
    }
    assertEquals(4, got.size());
    for (Map.Entry<String, List<long[]>> g : got.entrySet()) {
      List<long[]> seqs = g.getValue();
      assertTrue(seqs.size() >= 10, g.getKey() + " got " + seqs.size() + " of 12");
      for (int k = 1; k < seqs.size(); k++) assertEquals(seqs.get(k - 1)[0] + 1, seqs.get(k)[0], g.getKey() + ": in order, none lost");
      assertEquals(12, seqs.get(seqs.size() - 1)[0], g.getKey() + ": the last one published arrived");
    }
  }

  @Test
  void aBadSpecIsOneFailedSummaryNamingIt() {
    MuxSampler s = sampler(TargetSpecTest.base64("{\"name\":\"x\",\"transport\":\"carrier-pigeon\"}"));
    SampleResult r = s.sample(null);
    assertFalse(r.isSuccessful());
    assertTrue(r.isStopThread());
    assertTrue(r.getResponseMessage().contains("target.spec: transport: must be sse, ws, stream, poll or pull"), r.getResponseMessage());
    assertFalse(publisherAlive());
  }
}
