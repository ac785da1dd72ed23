enum Op implements IntOp {
    PLUS(1) {
        int apply(int a) { return a; }
    },
    MINUS(2, make()),
    TIMES;
    private final int code;
    Op(int code) { this.code = code; }
    Op() { this(0); }
    abstract int apply(int a);
}

// expect:
// entity enum Op 1-11
// entity class Op.PLUS 2-4 parent=Op
// entity method Op.PLUS.apply 3-3 parent=Op.PLUS
// entity constructor Op.Op 8-8 parent=Op
// entity constructor Op.Op#2 9-9 parent=Op
// entity method Op.apply 10-10 parent=Op
// inherit Op -> IntOp @1
// inherit Op.PLUS -> Op @2
// call Op -> make/0 @5
// call Op.Op#2 -> <self>.Op/1 @9
