use crate::shop::{self, cart::Cart, order::{Order as O, Line}};
use super::util::*;
use tokio;
use serde::Serialize as _;

pub mod api {
    use crate::shop::Cart;

    pub fn handle() {
        respond();
        self::respond();
        super::top();
        Cart::empty();
    }

    fn respond() {}

    #[cfg(test)]
    mod tests {
        #[test]
        fn responds() {
            super::respond();
        }
    }
}

fn top() {
    use crate::log::warn;
    warn();
    crate::log::info();
    shop::checkout::<u8>();
    api::handle();
    O::new();
}

mod storage;
// expect:
// entity function api.handle 9-14 -- an inline module prefixes the names in it
// entity function api.respond 16-16
// entity function api.tests.responds 20-23 -- test code: its qualname says `tests.`
// entity function top 27-34
// import crate @1 name=shop alias=shop -- `self` in a use list: the module itself
// import crate::shop::cart @1 name=Cart alias=Cart
// import crate::shop::order @1 name=Order alias=O
// import crate::shop::order @1 name=Line alias=Line
// import super::util @2 name=*
// import tokio @3 alias=tokio
// import serde @4 name=Serialize -- `as _` binds nothing
// import crate::log @28 name=warn alias=warn scope=top
// import storage @36 alias=storage -- `mod storage;` binds the module file
// call api.handle -> api.respond/0 @10 -- a bare name in an inline module is that module's
// call api.handle -> api.respond/0 @11
// call api.handle -> top/0 @12
// call api.handle -> api.Cart.empty/0 @13 -- an inline module's own `use` is not read: left unresolved
// call api.tests.responds -> api.respond/0 @22
// call top -> warn/0 @29
// call top -> crate.log.info/0 @30
// call top -> shop.checkout/0 @31
// call top -> api.handle/0 @32
// call top -> O.new/0 @33
