package pushbench.peers;

// Gatling's side of bench/peers.sh (issue #38 item 6, "against the peers"): N virtual users, one SSE stream
// or one WebSocket each, on the server at 127.0.0.1:<peers.port>, subscribed to event1 as pushbench's engine
// subscribes (SSE: GET /request?type=sse&events=event1; WebSocket: upgrade of GET /request, then the first
// message {"type":"ws","events":["event1"]}). Gatling's own DSL, its HTTP module's sse() and ws():
//   check  (default) every message is awaited by a check ("record") armed again as soon as the last one
//          matched (SSE: a loop of setCheck; WebSocket: the subscription's send awaiting one check sequence
//          per message): Gatling observes each message and records the check in its stats and
//          simulation.log; its response time is from the arming of the check to the message (the wait for
//          the next message, about the emit interval), not a trip time: Gatling has no hook to the
//          server's stamp
//   bare   the streams held and nothing awaited: messages arrive and are dropped unmatched (the least
//          Gatling can do with them; nothing per message is reported)
// Prints "ready" just before the injection starts; users start at once (atOnceUsers) after <peers.baseline> s
// of nothing (the bench takes the baseline heap then), and leave their loop once <peers.stop> exists (a daemon thread looks every 100 ms; the loop reads a
// flag), then close their stream.
//
// System properties: peers.port, peers.transport (sse|ws), peers.connections, peers.interval (ms, for the
// check's timeout), peers.baseline (s), peers.stop (a file), peers.mode (check|bare), peers.maxMessages
// (WebSocket: the checks awaited, at least the messages of the run).

import static io.gatling.javaapi.core.CoreDsl.asLongAs;
import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.nothingFor;
import static io.gatling.javaapi.core.CoreDsl.pause;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.core.CoreDsl.substring;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.sse;
import static io.gatling.javaapi.http.HttpDsl.ws;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.WsSendTextActionBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

public class PushSimulation extends Simulation {
  private static final String SUBSCRIPTION = "{\"type\":\"ws\",\"events\":[\"event1\"]}";
  static volatile boolean stopped;

  {
    int port = Integer.getInteger("peers.port");
    String transport = System.getProperty("peers.transport", "sse");
    int n = Integer.getInteger("peers.connections");
    int interval = Integer.getInteger("peers.interval", 1000);
    int baseline = Integer.getInteger("peers.baseline", 5);
    Path stop = Path.of(System.getProperty("peers.stop"));
    boolean bare = "bare".equals(System.getProperty("peers.mode"));
    Duration timeout = Duration.ofMillis(interval * 3L + 5000);

    Thread watcher = new Thread(() -> {
      try {
        while (!Files.exists(stop)) Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      stopped = true;
    }, "peers-stop-watcher");
    watcher.setDaemon(true);
    watcher.start();

    ChainBuilder open;
    ChainBuilder next;
    ChainBuilder close;
    if (transport.equals("sse")) {
      open = exec(sse("subscribe").get("/request?type=sse&events=event1"));
      next = exec(sse("next").setCheck().await(timeout).on(
          sse.checkMessage("record").check(substring("cycle").exists())));
      close = exec(sse("close").close());
    } else {
      // Gatling's WebSocket checks hang on a send (or the connect): the subscription's send awaits
      // <peers.maxMessages> check sequences of one check each, each timed from the last match. The bench
      // ends them with /event/clear: the clear record fails the pending check (one KO per user), and the
      // user goes on to the idle loop below until the stop.
      WsSendTextActionBuilder subscribe = ws("subscribe").sendText(SUBSCRIPTION);
      if (!bare) {
        int max = Integer.getInteger("peers.maxMessages", 120);
        for (int i = 0; i < max; i++) {
          subscribe = subscribe.await(timeout).on(ws.checkTextMessage("record").check(substring("cycle").exists()));
        }
      }
      open = exec(ws("connect").connect("/request")).exec(subscribe);
      next = pause(Duration.ofMillis(200));
      close = exec(ws("close").close());
    }
    if (bare) next = pause(Duration.ofMillis(200));

    // A failed check (a broken stream, a timeout) ends the observing loop: the user idles until the stop
    // rather than re-arming checks on a dead stream as fast as they fail.
    setUp(scenario(transport)
        .exec(open)
        .asLongAs(session -> !stopped && !session.isFailed()).on(next)
        .asLongAs(session -> !stopped).on(pause(Duration.ofMillis(200)))
        .exec(close)
        .injectOpen(nothingFor(Duration.ofSeconds(baseline)), atOnceUsers(n)))
        .protocols(http.baseUrl("http://127.0.0.1:" + port).wsBaseUrl("ws://127.0.0.1:" + port));
  }

  // Gatling's hook just before the injection starts: the bench's cue (Gatling's own "started" line is an
  // INFO log, and its logging is at WARN here).
  @Override
  public void before() {
    System.out.println("ready");
    System.out.flush();
  }
}
