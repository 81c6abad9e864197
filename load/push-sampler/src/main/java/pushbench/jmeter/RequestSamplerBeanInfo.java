package pushbench.jmeter;

// The GUI description both samplers share (JMeter's TestBean GUI builds their forms from it): the
// request's properties with their defaults; each sampler's BeanInfo groups them and adds its own.

import java.beans.PropertyDescriptor;

import org.apache.jmeter.testbeans.BeanInfoSupport;
import org.apache.jmeter.testbeans.gui.TextAreaEditor;

abstract class RequestSamplerBeanInfo extends BeanInfoSupport {
  RequestSamplerBeanInfo(Class<? extends RequestSampler> beanClass) {
    super(beanClass);
  }

  /** The request's properties (RequestSampler) with their defaults. */
  protected void requestProperties() {
    text("host", "127.0.0.1");
    text("port", "8080");
    text("connectTimeout", "30000");
    text("responseTimeout", "60000");
    text("method", "POST");
    text("path", "/request");
    text("contentType", "application/json");
    text("body", "").setPropertyEditorClass(TextAreaEditor.class);
    text("streamDir", "");
    text("rotateMegabytes", "");
  }

  /** A text property with its default, never undefined, expressions allowed. */
  protected PropertyDescriptor text(String name, String value) {
    PropertyDescriptor p = property(name);
    p.setValue(NOT_UNDEFINED, Boolean.TRUE);
    p.setValue(DEFAULT, value);
    p.setValue(NOT_EXPRESSION, Boolean.FALSE);
    return p;
  }
}
