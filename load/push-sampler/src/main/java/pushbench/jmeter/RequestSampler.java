package pushbench.jmeter;

// What the push sampler (a JMeter thread per connection) and the mux sampler (many connections per thread)
// share: the request they send (server, method, path, body, timeouts), as TestBean properties, and the
// engine's stream log they write it to. The subclasses add how they drive connections.

import java.nio.file.Path;
import java.nio.file.Paths;

import org.apache.jmeter.samplers.AbstractSampler;
import org.apache.jmeter.services.FileServer;
import org.apache.jmeter.testbeans.TestBean;

public abstract class RequestSampler extends AbstractSampler implements TestBean {
  private static final long serialVersionUID = 1L;

  protected String host = "127.0.0.1";
  protected String port = "8080";
  protected String method = "POST";
  protected String path = "/request";
  protected String contentType = "application/json";
  protected String body = "";
  protected String connectTimeout = "30000";
  protected String responseTimeout = "60000";
  protected String streamDir = "";
  protected String rotateMegabytes = "";

  /**
   * The engine's stream log in streamDir (relative to the plan's directory), or null when streamDir is
   * empty. A rotateMegabytes that is not a whole number of 1..2^20 MB is refused (IllegalArgumentException).
   */
  protected StreamLog streamLog() {
    String dir = streamDir == null ? "" : streamDir.trim();
    if (dir.isEmpty()) return null;
    Path p = Paths.get(dir);
    if (!p.isAbsolute()) {
      String base = FileServer.getFileServer().getBaseDir();
      if (base != null) p = Paths.get(base).resolve(p);
    }
    String mb = rotateMegabytes == null ? "" : rotateMegabytes.trim();
    long rotate = mb.isEmpty() ? 0 : MuxConfig.whole("rotateMegabytes", mb, 1, 1L << 20) << 20;
    return StreamLog.of(p, rotate);
  }

  // ---- TestBean properties (each sampler's BeanInfo) ----------------------------------------------------

  public String getHost() { return host; }
  public void setHost(String v) { host = v; }
  public String getPort() { return port; }
  public void setPort(String v) { port = v; }
  public String getMethod() { return method; }
  public void setMethod(String v) { method = v; }
  public String getPath() { return path; }
  public void setPath(String v) { path = v; }
  public String getContentType() { return contentType; }
  public void setContentType(String v) { contentType = v; }
  public String getBody() { return body; }
  public void setBody(String v) { body = v == null ? "" : v; }
  public String getConnectTimeout() { return connectTimeout; }
  public void setConnectTimeout(String v) { connectTimeout = v; }
  public String getResponseTimeout() { return responseTimeout; }
  public void setResponseTimeout(String v) { responseTimeout = v; }
  public String getStreamDir() { return streamDir; }
  public void setStreamDir(String v) { streamDir = v; }
  public String getRotateMegabytes() { return rotateMegabytes; }
  public void setRotateMegabytes(String v) { rotateMegabytes = v; }
}
