fn report(x: u32) {
    println!("{} {}", total(x), crate::fmt::money(x));
    assert_eq!(self.total(), helpers::round(x));
    log!(warn, inner!(x));
    let f = |y| y;
    vec![f(1), Point(2)];
}

fn broken( {
    still_read();
}

fn after() {
    kept();
}
// expect:
// entity function report 1-7
// entity function broken 9-11 -- what parses is kept
// entity function after 13-15
// call report -> total/? @2 -- calls among a macro's tokens: plain and path calls only
// call report -> crate.fmt.money/? @2
// call report -> helpers.round/? @3
// call report -> Point/? @6
// call broken -> still_read/0 @10
// call after -> kept/0 @14
// syntax-errors: 1
