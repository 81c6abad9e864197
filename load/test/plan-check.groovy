// Loads a JMeter plan the way the JMeter GUI does, headless: SaveService reads it, every element's GUI
// class is created and shown the element (configure), and the tree is saved again and re-read.
// Prints one line per element ("element <testclass> <guiclass> <name>", a tab, "in <path of the names above
// it>") and ends with "plan ok".
//
//   java -Djava.awt.headless=true -cp "$JMETER_HOME/lib/*:$JMETER_HOME/lib/ext/*" \
//        groovy.ui.GroovyMain plan-check.groovy <jmeter home> <plan.jmx> <resaved.jmx>
import org.apache.jmeter.gui.JMeterGUIComponent
import org.apache.jmeter.save.SaveService
import org.apache.jmeter.testbeans.gui.TestBeanGUI
import org.apache.jmeter.testelement.TestElement
import org.apache.jmeter.util.JMeterUtils
import org.apache.jorphan.collections.HashTree

def (home, planPath, resavedPath) = args
JMeterUtils.setJMeterHome(home)
JMeterUtils.loadJMeterProperties(home + '/bin/jmeter.properties')
JMeterUtils.initLocale()
SaveService.loadProperties()

def paths = new IdentityHashMap()   // element -> the names above it, joined by "/" (two identical elements are equal)
def elements = { HashTree tree ->
    def found = []
    def walk
    walk = { HashTree t, String above ->
        t.list().each { node ->
            found << (TestElement) node
            paths[node] = above
            walk(t.getTree(node), above ? "${above}/${node.name}" : node.name)
        }
    }
    walk(tree, '')
    found
}

def tree = SaveService.loadTree(new File(planPath))
def loaded = elements(tree)
loaded.each { TestElement el ->
    def guiClass = el.getPropertyAsString(TestElement.GUI_CLASS)
    if (!guiClass) {
        throw new IllegalStateException("element '${el.name}' (${el.class.name}) has no guiclass")
    }
    // As the GUI does it: a TestBeanGUI is made for the bean's class, every other GUI class plainly.
    def gui = guiClass == TestBeanGUI.name ? new TestBeanGUI(el.class)
            : (JMeterGUIComponent) Class.forName(guiClass).getDeclaredConstructor().newInstance()
    gui.configure(el)
    // What the GUI would save back must keep every value the plan sets (a field the GUI misreads
    // would silently change the plan the first time someone saves it).
    def back = (TestElement) el.clone()
    gui.modifyTestElement(back)   // what the GUI does to the element when the plan is saved
    el.propertyIterator().each { prop ->
        if (prop instanceof org.apache.jmeter.testelement.property.StringProperty
                || prop instanceof org.apache.jmeter.testelement.property.BooleanProperty
                || prop instanceof org.apache.jmeter.testelement.property.IntegerProperty) {
            def again = back.getProperty(prop.name)
            if (again != null && !(again instanceof org.apache.jmeter.testelement.property.NullProperty)
                    && again.stringValue != prop.stringValue) {
                throw new IllegalStateException("'${el.name}': the GUI turns ${prop.name}='${prop.stringValue}' into '${again.stringValue}'")
            }
        }
    }
    println "element ${el.class.simpleName} ${guiClass.tokenize('.').last()} ${el.name}\tin ${paths[el]}"
}

new File(resavedPath).withOutputStream { out -> SaveService.saveTree(tree, out) }
def again = elements(SaveService.loadTree(new File(resavedPath)))
if (again*.name != loaded*.name) {
    throw new IllegalStateException("the re-saved plan differs: ${again*.name} vs ${loaded*.name}")
}
println "plan ok: ${loaded.size()} elements"
// The GUI classes started Swing's event thread, which would keep the JVM alive.
System.exit(0)
