package pushbench.jmeter;

// The GUI description of PushSampler (JMeter's TestBean GUI builds the form from it, so testplan.jmx
// opens in the JMeter GUI without a Swing class of ours). Texts: PushSamplerResources.properties.

public class PushSamplerBeanInfo extends RequestSamplerBeanInfo {
  public PushSamplerBeanInfo() {
    super(PushSampler.class);
    createPropertyGroup("server", new String[] {"host", "port", "connectTimeout", "responseTimeout"});
    createPropertyGroup("request", new String[] {"method", "path", "contentType", "body"});
    createPropertyGroup("log", new String[] {"streamDir", "rotateMegabytes"});
    requestProperties();
  }
}
