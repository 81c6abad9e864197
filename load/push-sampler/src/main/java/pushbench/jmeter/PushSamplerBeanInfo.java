package pushbench.jmeter;

// The GUI description of PushSampler (JMeter's TestBean GUI builds the form from it, so testplan.jmx
// opens in the JMeter GUI without a Swing class of ours). Texts: PushSamplerResources.properties.

import java.beans.PropertyDescriptor;

import org.apache.jmeter.testbeans.BeanInfoSupport;
import org.apache.jmeter.testbeans.gui.TextAreaEditor;

public class PushSamplerBeanInfo extends BeanInfoSupport {
  public PushSamplerBeanInfo() {
    super(PushSampler.class);
    createPropertyGroup("server", new String[] {"host", "port", "connectTimeout", "responseTimeout"});
    createPropertyGroup("request", new String[] {"method", "path", "contentType", "body"});
    createPropertyGroup("log", new String[] {"streamDir", "rotateMegabytes"});
    text("host", "127.0.0.1");
    text("port", "8080");
    text("connectTimeout", "30000");
    text("responseTimeout", "60000");
    text("method", "POST");
    text("path", "/request");
    text("contentType", "application/json");
    PropertyDescriptor body = text("body", "");
    body.setPropertyEditorClass(TextAreaEditor.class);
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
