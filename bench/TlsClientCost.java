package pushbench.jmeter;

// One side of bench/tls-netty-cost.sh (issue #49 item 1: the hand-written SSLEngine on the engine's selector
// weighed against Netty by measurement; docs/engine.md "Why a hand-written SSLEngine"). This JVM holds N
// Server-Sent Events streams over TLS on nginx + nchan (https://127.0.0.1:PORT/sse/<channel>, 10 channels),
// the test CA trusted and the name checked, with one client:
//   mux    the mux engine itself (MuxEngine in target mode: TlsLink on its one selector, its HTTP and SSE
//          parsing, every event a record), no stream log
//   netty  Netty 4.1 (one NioEventLoopGroup thread, SslHandler over the JDK's SSLEngine, the same trust and
//          name check), each read stamped (µs) and its events counted at their blank line: less than the
//          engine does per message (no HTTP or SSE parsing), so its figure is Netty's lower bound
// The messages come from the engine's own publisher (TargetPublisher, https, 1 message/s per channel) in
// this JVM for both clients, so both figures carry its equal share. Then over a steady window: this
// process's CPU time (utime + stime of /proc/self/stat) per message received; after the window, the live heap
// after full collections with the streams held less the same once the client and its streams are gone, per
// held connection. One JSON line on stdout.
//
//   java -cp <push-sampler classes>:<jackson>:<netty> pushbench.jmeter.TlsClientCost <mux|netty> <port> <connections>
//        <CA pem file> <warmup s> <window s>

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslProvider;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLParameters;

public final class TlsClientCost {
  private static final int CHANNELS = 10;

  private TlsClientCost() { }

  public static void main(String[] a) throws Exception {
    String kind = a[0];
    int port = Integer.parseInt(a[1]);
    int n = Integer.parseInt(a[2]);
    String caFile = a[3];
    long warmupMs = Long.parseLong(a[4]) * 1000;
    long windowMs = Long.parseLong(a[5]) * 1000;
    String prefix = "tc" + System.currentTimeMillis() + "-";
    String ca = Files.readString(Path.of(caFile), StandardCharsets.US_ASCII);
    long openMs = Math.max(2000, n);   // connections opened at 1,000 a second
    long durationMs = openMs + warmupMs + windowMs + 60_000;
    TargetSpec spec = TargetSpec.parse(specJson(port, prefix, ca));
    long start = System.nanoTime() / 1_000_000;
    TargetPublisher publisher = new TargetPublisher(spec, start, durationMs, 5000, 10_000, null);
    publisher.start();
    Client c = kind.equals("netty") ? new NettyClient(port, n, prefix, new File(caFile)) : new MuxClient(spec, n, openMs, durationMs, start);
    long opened = c.open(openMs + 30_000);
    c.run(warmupMs);
    long cpu0 = WsClientCost.cpuTicks("self");
    long rec0 = c.records();
    long t0 = System.nanoTime();
    c.run(windowMs);
    long t1 = System.nanoTime();
    long rec1 = c.records();
    long cpu1 = WsClientCost.cpuTicks("self");
    long heapHeld = WsClientCost.liveHeap();
    c.close();
    c = null;   // the client and every stream's state are garbage from here on
    long heapGone = WsClientCost.liveHeap();
    publisher.close();
    long records = rec1 - rec0;
    double seconds = (t1 - t0) / 1e9;
    double clientUs = (cpu1 - cpu0) * 1e6 / 100;   // USER_HZ
    System.out.printf(java.util.Locale.ROOT,
        "{\"client\":\"%s\",\"connections\":%d,\"open\":%d,\"windowS\":%.1f,\"records\":%d,\"clientCpuPct\":%.1f,"
            + "\"clientUsPerRecord\":%.2f,\"kbPerConnection\":%.2f}%n",
        kind, n, opened, seconds, records, clientUs / seconds / 1e4, records > 0 ? clientUs / records : -1,
        (heapHeld - heapGone) / 1024.0 / n);
    System.exit(0);
  }

  static String specJson(int port, String prefix, String ca) {
    String base = "https://127.0.0.1:" + port;
    return "{\"name\":\"tls-cost\",\"transport\":\"sse\",\"intervalMs\":0,"
        + "\"subscribe\":{\"url\":\"" + base + "/sse/{{channel}}\"},"
        + "\"publish\":{\"method\":\"POST\",\"url\":\"" + base + "/pub/{{channel}}\",\"body\":\"{\\\"seq\\\":{{seq}},\\\"sentUs\\\":{{sentUs}}}\"},"
        + "\"channels\":" + CHANNELS + ",\"rate\":1,\"drainMs\":0,\"channelPrefix\":\"" + prefix + "\","
        + "\"tls\":{\"ca\":\"" + ca.replace("\n", "\\n") + "\",\"insecure\":false,\"serverName\":null}}";
  }

  interface Client {
    long open(long limitMs) throws Exception;

    void run(long ms) throws Exception;

    long records();

    void close() throws Exception;
  }

  // ---- the mux engine --------------------------------------------------------------------------------------

  static final class MuxClient implements Client {
    private final MuxEngine engine;
    private final int n;
    private long records;

    MuxClient(TargetSpec spec, int n, long rampupMs, long durationMs, long start) throws Exception {
      MuxConfig c = new MuxConfig();
      c.target(spec);
      c.connections = n;
      c.rampupMs = rampupMs;
      c.durationMs = durationMs;
      c.connectTimeoutMs = 30_000;
      c.responseTimeoutMs = 0;
      this.n = n;
      this.engine = new MuxEngine(c, 0, 1, start, null);
    }

    @Override
    public long open(long limitMs) {
      long deadline = System.currentTimeMillis() + limitMs;
      while (engine.openChannels() < n && System.currentTimeMillis() < deadline) records += engine.runFor(100).records;
      return engine.openChannels();
    }

    @Override
    public void run(long ms) {
      long until = System.nanoTime() / 1_000_000 + ms;
      for (long now; (now = System.nanoTime() / 1_000_000) < until; ) records += engine.runFor(Math.min(1000, until - now)).records;
    }

    @Override
    public long records() { return records; }

    @Override
    public void close() { engine.close(); }
  }

  // ---- Netty -----------------------------------------------------------------------------------------------

  static final class NettyClient implements Client {
    private final NioEventLoopGroup group = new NioEventLoopGroup(1);
    private final SslContext ssl;
    private final int port;
    private final int n;
    private final String prefix;
    private final AtomicLong records = new AtomicLong();
    private final AtomicLong stamps = new AtomicLong();   // keeps the stamping from being optimized away
    private final AtomicLong subscribed = new AtomicLong();
    private final List<Channel> channels = new ArrayList<>();

    NettyClient(int port, int n, String prefix, File ca) throws Exception {
      this.ssl = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).trustManager(ca).build();
      this.port = port;
      this.n = n;
      this.prefix = prefix;
    }

    @Override
    public long open(long limitMs) throws Exception {
      long deadline = System.currentTimeMillis() + limitMs;
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        long due = t0 + i * 1_000_000L;   // 1,000 a second, as the engine opens them
        long wait = due - System.nanoTime();
        if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        byte[] request = ("GET /sse/" + prefix + (i % CHANNELS) + " HTTP/1.1\r\nHost: 127.0.0.1:" + port
            + "\r\nAccept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class).option(ChannelOption.TCP_NODELAY, true)
            .handler(new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                SslHandler h = ssl.newHandler(ch.alloc(), "127.0.0.1", port);
                SSLParameters p = h.engine().getSSLParameters();
                p.setEndpointIdentificationAlgorithm("HTTPS");
                h.engine().setSSLParameters(p);
                ch.pipeline().addLast(h, new Events(request));
              }
            });
        channels.add(b.connect("127.0.0.1", port).channel());
      }
      while (subscribed.get() < n && System.currentTimeMillis() < deadline) Thread.sleep(50);
      return subscribed.get();
    }

    /** A stream: the request once the handshake is done; each read stamped, its events counted. */
    final class Events extends ChannelInboundHandlerAdapter {
      private final byte[] request;
      private boolean lastWasLf;
      private boolean headSeen;

      Events(byte[] request) { this.request = request; }

      @Override
      public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent && ((SslHandshakeCompletionEvent) evt).isSuccess()) {
          ctx.writeAndFlush(Unpooled.wrappedBuffer(request));
        }
      }

      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf b = (ByteBuf) msg;
        try {
          long stamp = PushClient.nowMicros();
          if (!headSeen) {
            headSeen = true;
            subscribed.incrementAndGet();
          }
          int events = 0;
          for (int i = b.readerIndex(), end = b.writerIndex(); i < end; i++) {
            byte c = b.getByte(i);
            if (c == '\n') {
              if (lastWasLf) events++;
              lastWasLf = true;
            } else if (c != '\r') {
              lastWasLf = false;
            }
          }
          if (events > 0) {
            records.addAndGet(events);
            stamps.addAndGet(stamp);
          }
        } finally {
          b.release();
        }
      }
    }

    @Override
    public void run(long ms) throws InterruptedException { Thread.sleep(ms); }

    @Override
    public long records() { return records.get(); }

    @Override
    public void close() throws InterruptedException {
      for (Channel c : channels) c.close();
      channels.clear();
      group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
    }
  }
}
