class Duration extends Base {
  static ZERO = () => new Duration(0);
  #secret() {}
  constructor(ms) {
    super(ms);
    super.init();
    this.#secret();
    this.helper.run();
  }
  get ms() { return this._ms; }
  set ms(v) { this._ms = v; }
  static of(x) { return new Duration(x); }
}
const Anon = class extends ns.Base {
  m() {}
};

// expect:
// entity class Duration 1-13
// entity method Duration.ZERO 2-2 parent=Duration
// entity method Duration.#secret 3-3 parent=Duration
// entity constructor Duration.constructor 4-9 parent=Duration
// entity method Duration.ms 10-10 parent=Duration
// entity method Duration.ms#2 11-11 parent=Duration
// entity method Duration.of 12-12 parent=Duration
// entity class Anon 14-16
// entity method Anon.m 15-15 parent=Anon
// inherit Duration -> Base @1
// inherit Anon -> ns.Base @14
// call Duration.ZERO -> Duration/1 @2
// call Duration.constructor -> <super>.constructor/1 @5
// call Duration.constructor -> <super>.init/0 @6
// call Duration.constructor -> <self>.#secret/0 @7
// call Duration.constructor -> <self>.helper.run/0 @8
// call Duration.of -> Duration/1 @12
