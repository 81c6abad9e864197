package pushbench.jmeter;

// A TLS server for the tests (the JDK's SSLServerSocket on 127.0.0.1; TestServer: a thread per connection,
// each closed when the server is): it serves a certificate of targets/tls/make-certs.sh (made once per test
// JVM into a directory deleted at its exit: Certs) and answers every request it reads (up to its blank line)
// with a scripted answer: byte arrays written and flushed one by one (so records and TCP segments fall where
// the script says; an empty one is a pause of 50 ms), then, unless told to hold, the connection closed with
// close_notify. Every request's head is kept in `requests`.

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;

final class TlsServer extends TestServer {
  /** The certificates of targets/tls/make-certs.sh, made once into a temporary directory. */
  static final class Certs {
    private static Path dir;

    static synchronized Path dir() throws IOException, InterruptedException {
      if (dir != null) return dir;
      Path d = Files.createTempDirectory("pb-tls-certs");
      Process p = new ProcessBuilder("bash", Path.of("../../targets/tls/make-certs.sh").toAbsolutePath().toString(), d.toString())
          .redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() != 0) throw new IOException("make-certs.sh failed: " + out);
      d.toFile().deleteOnExit();   // deleted in the reverse order: its files first, then it
      try (java.util.stream.Stream<Path> files = Files.list(d)) {
        files.forEach(f -> f.toFile().deleteOnExit());
      }
      dir = d;
      return d;
    }

    static String pem(String name) throws IOException, InterruptedException {
      return Files.readString(dir().resolve(name), StandardCharsets.US_ASCII);
    }
  }

  private final Function<String, List<byte[]>> script;
  private final boolean hold;
  final List<String> requests = new CopyOnWriteArrayList<>();

  /** Serves cert (a .pem of Certs, its key `key`), answering each request's head with script(head). */
  TlsServer(String cert, String key, boolean hold, Function<String, List<byte[]>> script) throws Exception {
    super(listen(cert, key));
    this.script = script;
    this.hold = hold;
    start("tls");
  }

  private static SSLServerSocket listen(String cert, String key) throws Exception {
    CertificateFactory cf = CertificateFactory.getInstance("X.509");
    Certificate[] chain = cf.generateCertificates(Files.newInputStream(Certs.dir().resolve(cert))).toArray(new Certificate[0]);
    String k = Certs.pem(key).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    PrivateKey pk = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(k)));
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry("server", pk, "pw".toCharArray(), chain);
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, "pw".toCharArray());
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), null, null);
    return (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
  }

  @Override
  void serve(Socket s, InputStream in, OutputStream out, int connection) throws Exception {
    String head = readHead(in);
    if (head == null) return;
    requests.add(head);
    for (byte[] piece : script.apply(head)) {
      if (piece.length == 0) {   // an empty piece: a pause of 50 ms
        Thread.sleep(50);
        continue;
      }
      send(out, piece);
    }
    if (hold) while (in.read() >= 0) { /* held until the client closes */ }
    s.setSoTimeout(100);   // closing: the client's close_notify is not waited for long
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }
}
