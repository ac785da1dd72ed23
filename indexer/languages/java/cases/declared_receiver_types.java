class A {
    private final Map<String, List<Integer>> cache;
    Service service;
    Helper shadowed;
    void m(final Parser p, Writer[] ws, String... rest) {
        Reader r = open();
        var w = new java.io.StringWriter();
        var unknown = make();
        var cast = (Config) lookup();
        p.parse();
        r.read();
        w.flush();
        unknown.go();
        cast.load();
        cache.get("k");
        service.call();
        this.service.call();
        this.missing.call();
        ws.clone();
        rest.length();
        Other shadowed = null;
        shadowed.run();
        new Builder().build();
        ((Config) o).load();
    }
}

// expect:
// call A.m -> open/0 @6
// call A.m -> java.io.StringWriter/0 @7
// call A.m -> make/0 @8
// call A.m -> lookup/0 @9
// call A.m -> Parser.parse/0 @10
// call A.m -> Reader.read/0 @11
// call A.m -> java.io.StringWriter.flush/0 @12
// call A.m -> unknown.go/0 @13
// call A.m -> Config.load/0 @14
// call A.m -> Map.get/1 @15
// call A.m -> Service.call/0 @16
// call A.m -> Service.call/0 @17
// call A.m -> <self>.missing.call/0 @18 -- no declared field: as written, for the resolver to guess
// call A.m -> Writer.clone/0 @19
// call A.m -> String.length/0 @20
// call A.m -> Other.run/0 @22 -- the local shadows the field
// call A.m -> Builder.build/0 @23
// call A.m -> Builder/0 @23
// call A.m -> Config.load/0 @24
