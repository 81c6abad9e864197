package pushbench.jmeter;

// The GUI description of MuxSampler (JMeter's TestBean GUI builds the form from it, so a plan with the
// mux sampler opens in the JMeter GUI without a Swing class of ours). Texts: MuxSamplerResources.properties.

public class MuxSamplerBeanInfo extends RequestSamplerBeanInfo {
  public MuxSamplerBeanInfo() {
    super(MuxSampler.class);
    createPropertyGroup("server", new String[] {"host", "port", "connectTimeout", "responseTimeout"});
    createPropertyGroup("request", new String[] {"requestType", "method", "path", "contentType", "body",
        "pullInterval", "failOnTimeout", "churn", "target", "tlsPort", "tlsCa"});
    createPropertyGroup("load", new String[] {"connections", "rampup", "duration", "summaryInterval"});
    createPropertyGroup("log", new String[] {"streamDir", "rotateMegabytes"});
    requestProperties();
    text("requestType", "comet");
    text("pullInterval", "1000");
    text("failOnTimeout", "false");
    text("churn", "0");
    text("target", "");
    text("tlsPort", "0");
    text("tlsCa", "");
    text("connections", "1");
    text("rampup", "0");
    text("duration", "60");
    text("summaryInterval", "1000");
  }
}
