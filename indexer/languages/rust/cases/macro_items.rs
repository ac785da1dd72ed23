cfg_rt! {
    #[cfg(feature = "rt")]
    pub fn spawn() {
        run();
    }
}

pub struct Builder;

impl Builder {
    cfg_unstable! {
        fn unstable(&self) {}
    }
}

fn with_budget() {
    struct Guard;
    impl Drop for Guard {
        fn drop(&mut self) {}
    }
}

lazy_static! {
    static ref X: u32 = 1;
}
// expect:
// entity function spawn 2-5 -- items in the braces of a macro call are read as items
// entity struct Builder 8-8
// entity method Builder.unstable 12-12 parent=Builder -- ... in an impl's body too
// entity function with_budget 16-21
// entity struct with_budget.Guard 17-17 -- items in a function are named under it
// entity method with_budget.Guard.drop 19-19
// call spawn -> run/0 @4
// no inherits -- a trait impl for a type the file declares in a function body
// syntax-errors: 0 -- what a macro's braces hold need not be Rust: their errors are no file's
