package pushbench.jmeter;

// A target's TLS settings (issue #49; docs/targets.md "TLS"): the spec's `tls` object, and the one SSLContext
// every connection of the engine that holds it makes its SSLEngines from (its client session cache is what
// resumes the sessions of reconnections). Trust: the CA certificates of `ca` (PEM text the spec carries, so an
// engine on another host needs no file) or, without one, the JDK's trust store; `insecure` trusts any
// certificate and checks no name (self-signed test servers; the report says so). The name checked (and sent
// as SNI when it is a host name, not an IP address) is `serverName`, else the URL's host.

import java.io.ByteArrayInputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

final class TlsConfig {
  /** PEM text of the CA certificates trusted; null: the JDK's trust store. */
  final String caPem;
  final boolean insecure;
  /** The name checked and sent as SNI; null: the URL's host. */
  final String serverName;
  private SSLContext context;

  TlsConfig(String caPem, boolean insecure, String serverName) {
    this.caPem = caPem;
    this.insecure = insecure;
    this.serverName = serverName;
  }

  /** The context (built once; an IllegalArgumentException naming what is wrong with the CA). */
  synchronized SSLContext context() {
    if (context != null) return context;
    try {
      TrustManager[] trust;
      if (insecure) {
        trust = new TrustManager[] {new TrustAll()};
      } else {
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init(caPem == null ? null : caStore(caPem));
        trust = f.getTrustManagers();
      }
      SSLContext c = SSLContext.getInstance("TLS");
      c.init(null, trust, null);
      context = c;
      return c;
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalArgumentException("target.spec: tls.ca: " + e.getMessage(), e);
    }
  }

  private static KeyStore caStore(String pem) throws GeneralSecurityException, java.io.IOException {
    Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509")
        .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
    if (certs.isEmpty()) throw new GeneralSecurityException("no certificate in the PEM text");
    KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    ks.load(null, null);
    int i = 0;
    for (Certificate c : certs) ks.setCertificateEntry("ca" + i++, c);
    return ks;
  }

  /** A client SSLEngine for host:port (the session cache's key), its name checked unless insecure. */
  SSLEngine engine(String host, int port) {
    String name = serverName != null ? serverName : host;
    SSLEngine e = context().createSSLEngine(name, port);
    e.setUseClientMode(true);
    SSLParameters p = e.getSSLParameters();
    if (!insecure) p.setEndpointIdentificationAlgorithm("HTTPS");
    if (isHostName(name)) p.setServerNames(List.of(new SNIHostName(name)));
    e.setSSLParameters(p);
    return e;
  }

  // SNI carries host names only (RFC 6066): not an IPv4 or IPv6 literal.
  static boolean isHostName(String name) {
    return !name.contains(":") && !name.matches("[0-9.]+") && !name.isEmpty();
  }

  /** insecure: every certificate trusted, no name checked. */
  private static final class TrustAll extends X509ExtendedTrustManager {
    @Override public void checkClientTrusted(X509Certificate[] chain, String authType) { }
    @Override public void checkServerTrusted(X509Certificate[] chain, String authType) { }
    @Override public void checkClientTrusted(X509Certificate[] chain, String authType, Socket s) { }
    @Override public void checkServerTrusted(X509Certificate[] chain, String authType, Socket s) { }
    @Override public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine e) { }
    @Override public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine e) { }
    @Override public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; }
  }
}
