class A<T> extends com.acme.Base<T, String> implements I<T>, Map.Entry<K, V> {}
class B {}
interface J extends K<String>, L {}
enum E implements X {}

// expect:
// inherit A -> com.acme.Base @1
// inherit A -> I @1
// inherit A -> Map.Entry @1
// inherit J -> K @3
// inherit J -> L @3
// inherit E -> X @4
