package pushbench.jmeter;

// The GUI description of MuxSampler (JMeter's TestBean GUI builds the form from it, so a plan with the
// mux sampler opens in the JMeter GUI without a Swing class of ours). Texts: MuxSamplerResources.properties.

import java.beans.PropertyDescriptor;

import org.apache.jmeter.testbeans.BeanInfoSupport;
import org.apache.jmeter.testbeans.gui.TextAreaEditor;

public class MuxSamplerBeanInfo extends BeanInfoSupport {
  public MuxSamplerBeanInfo() {
    super(MuxSampler.class);
    createPropertyGroup("server", new String[] {"host", "port", "connectTimeout", "responseTimeout"});
    createPropertyGroup("request", new String[] {"requestType", "method", "path", "contentType", "body",
        "pullInterval", "failOnTimeout"});
    createPropertyGroup("load", new String[] {"connections", "rampup", "duration", "summaryInterval"});
    createPropertyGroup("log", new String[] {"streamDir", "rotateMegabytes"});
    text("host", "127.0.0.1");
    text("port", "8080");
    text("connectTimeout", "30000");
    text("responseTimeout", "60000");
    text("requestType", "comet");
    text("method", "POST");
    text("path", "/request");
    text("contentType", "application/json");
    PropertyDescriptor body = text("body", "");
    body.setPropertyEditorClass(TextAreaEditor.class);
    text("pullInterval", "1000");
    text("failOnTimeout", "false");
    text("connections", "1");
    text("rampup", "0");
    text("duration", "60");
    text("summaryInterval", "1000");
    text("streamDir", "");
    text("rotateMegabytes", "");
  }

  private PropertyDescriptor text(String name, String value) {
    PropertyDescriptor p = property(name);
    p.setValue(NOT_UNDEFINED, Boolean.TRUE);
    p.setValue(DEFAULT, value);
    p.setValue(NOT_EXPRESSION, Boolean.FALSE);
    return p;
  }
}
