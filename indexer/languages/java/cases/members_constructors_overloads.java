package p;

/**
 * Javadoc is not part of the span.
 */
@Deprecated
@SuppressWarnings("x")
public class XmlFactory extends Base {
    /** ctor doc */
    public XmlFactory() {
        this(1);
    }

    XmlFactory(int a) { super(a); }

    @Override
    public void m() {}

    void m(int a) {}

    void m(int a, int b) {}

    abstract int n();
}

// expect:
// entity class XmlFactory 6-24 -- Javadoc is not part of the span; annotations are
// entity constructor XmlFactory.XmlFactory 10-12 parent=XmlFactory
// entity constructor XmlFactory.XmlFactory#2 14-14 parent=XmlFactory
// entity method XmlFactory.m 16-17 parent=XmlFactory
// entity method XmlFactory.m#2 19-19 parent=XmlFactory
// entity method XmlFactory.m#3 21-21 parent=XmlFactory
// entity method XmlFactory.n 23-23 parent=XmlFactory
// call XmlFactory.XmlFactory -> <self>.XmlFactory/1 @11
// call XmlFactory.XmlFactory#2 -> <super>.Base/1 @14
