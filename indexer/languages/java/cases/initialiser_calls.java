class A {
    static final Logger LOG = Logger.get(A.class);
    private final List<String> xs = new ArrayList<>();
    static { init(); }
    { setup(); }
    void m() { run(); }
}

// expect:
// call A -> Logger.get/1 @2
// call A -> ArrayList/0 @3
// call A -> init/0 @4
// call A -> setup/0 @5
// call A.m -> run/0 @6
