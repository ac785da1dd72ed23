struct Shop {
    cart: Cart,
    count: u32,
    name: String,
}

impl Shop {
    fn checkout(&self, pay: &mut Payment, rules: impl Rules, log: &dyn Log, extra: u32) {
        self.cart.total();
        self.count.pow(2);
        self.name.len();
        self.audit();
        pay.charge(extra);
        rules.apply();
        log.write();
        let receipt: Receipt = make();
        receipt.print();
        let order = Order::new();
        order.submit();
        let line = Line { qty: 1 };
        line.price();
        let maybe = Stock::new()?;
        maybe.check();
        let again = &order;
        again.submit();
    }

    fn generic<T: Rules>(&self, t: T, items: Vec<Item>) {
        t.apply();
        T::default();
        items.len();
        for item in items.iter() {
            item.weigh();
        }
        let twice = Item::new();
        let twice = twice.clone();
        twice.weigh();
        let run = |cart: Cart| cart.total();
        run(self.cart);
        if let Some(found) = self.find() {
            found.weigh();
        }
    }

    fn audit(&self) {}
}
// expect:
// entity struct Shop 1-5
// entity method Shop.checkout 8-26 parent=Shop
// entity method Shop.generic 28-43 parent=Shop
// entity method Shop.audit 45-45 parent=Shop
// call Shop.checkout -> Cart.total/0 @9 -- through the field's declared type
// call Shop.checkout -> String.len/0 @11 -- a u32's method is no call of the repository's
// call Shop.checkout -> Shop.audit/0 @12
// call Shop.checkout -> Payment.charge/1 @13
// call Shop.checkout -> <expr>.apply/0 @14 -- `impl Rules`: which impl is not known
// call Shop.checkout -> <expr>.write/0 @15 -- a trait object: decided at run time
// call Shop.checkout -> make/0 @16
// call Shop.checkout -> Receipt.print/0 @17
// call Shop.checkout -> Order.new/0 @18
// call Shop.checkout -> Order.submit/0 @19 inferred -- typed by the T::new() convention
// call Shop.checkout -> Line/? @20
// call Shop.checkout -> Line.price/0 @21
// call Shop.checkout -> Stock.new/0 @22
// call Shop.checkout -> Stock.check/0 @23 inferred -- through `?`
// call Shop.checkout -> <expr>.submit/0 @25 -- a copy of another local is not followed
// call Shop.generic -> <expr>.apply/0 @29 -- a generic parameter
// call Shop.generic -> Vec.len/0 @31
// call Shop.generic -> Vec.iter/0 @32
// call Shop.generic -> <expr>.weigh/0 @33 -- bound by a for pattern
// call Shop.generic -> Item.new/0 @35
// call Shop.generic -> <expr>.clone/0 @36
// call Shop.generic -> <expr>.weigh/0 @37 -- bound twice
// call Shop.generic -> <expr>.total/0 @38 -- a closure's parameter is a pattern too
// call Shop.generic -> Shop.find/0 @40
// call Shop.generic -> <expr>.weigh/0 @41
