use std::fmt;

#[derive(Debug, Clone)]
/// An order: its lines.
pub struct Order<T> {
    lines: Vec<T>,
}

pub enum State { Open, Paid }

pub trait Priced: fmt::Display {
    fn price(&self) -> u32;
    fn doubled(&self) -> u32 {
        self.price() * 2
    }
}

impl<T: Clone> Order<T> {
    #[inline]
    #[must_use]
    pub fn new() -> Self {
        Self { lines: Vec::new() }
    }
}

impl<T> Priced for Order<T> {
    fn price(&self) -> u32 { 0 }
}

impl fmt::Display for Invoice {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) }
}

impl Priced for [u8] {
    fn price(&self) -> u32 { 1 }
}

extern "C" {
    fn abs(x: i32) -> i32;
}

macro_rules! helper {
    () => { fn hidden() {} };
}

fn outer() {
    fn inner() {}
    inner();
}
// expect:
// entity struct Order 3-7
// entity enum State 9-9
// entity trait Priced 11-16
// entity method Priced.doubled 13-15 parent=Priced -- a default method; price() has no body: no Function
// entity method Order.new 19-23 parent=Order -- its attributes start the span, generics are dropped
// entity method Order.price 27-27 parent=Order
// entity method Invoice.fmt 31-31 -- Invoice is declared in another file: no parent here
// entity method [u8].price 35-35 name=price -- a type with no name is named by its text
// entity function outer 46-49
// entity function outer.inner 47-47 parent=outer
// inherit Priced -> fmt.Display @11 -- supertraits are bases
// inherit Order -> Priced @26 -- `impl Trait for Type` in Type's file
// import std @1 name=fmt alias=fmt
// call Priced.doubled -> <expr>.price/0 @14 -- an implementing type may override price(): not known here
// call Order.new -> Order/? @22 -- `Self { .. }` makes an Order
// call Order.new -> Vec.new/0 @22
// call Invoice.fmt -> Ok/1 @31
// call outer -> inner/0 @48
