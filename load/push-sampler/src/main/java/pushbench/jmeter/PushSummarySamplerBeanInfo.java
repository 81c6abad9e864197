package pushbench.jmeter;

// The GUI description of PushSummarySampler (JMeter's TestBean GUI builds the form from it, so testplan.jmx
// opens in the JMeter GUI without a Swing class of ours). Texts: PushSummarySamplerResources.properties.

import java.beans.PropertyDescriptor;

import org.apache.jmeter.testbeans.BeanInfoSupport;

public class PushSummarySamplerBeanInfo extends BeanInfoSupport {
  public PushSummarySamplerBeanInfo() {
    super(PushSummarySampler.class);
    createPropertyGroup("summary", new String[] {"interval", "window"});
    text("interval", "1000");
    text("window", "60");
  }

  // A text property with its default, never undefined, expressions allowed.
  private void text(String name, String value) {
    PropertyDescriptor p = property(name);
    p.setValue(NOT_UNDEFINED, Boolean.TRUE);
    p.setValue(DEFAULT, value);
    p.setValue(NOT_EXPRESSION, Boolean.FALSE);
  }
}
