BEGIN_DECLS

int parsed(void)
{
    return helper();
}

static int broken(int x)
{
    LIST_FOREACH(item, &list, entries) {
        visit(item);
    }
    return x + * ;
}

DEFINE_TABLE(names) = { a, b, };

int after(void)
{
    return parsed();
}
// expect:
// syntax-errors: 3
// entity function parsed 1-6 -- the unknown macro on line 1 is read as its return type
// entity function broken 8-14 -- a macro loop and a broken expression: what parses is kept
// entity function after 18-21 -- a macro-made table before it does not hide it
// call parsed -> helper/0 @5
// call broken -> LIST_FOREACH/3 @10 -- a macro read as a call: no function of that name resolves it
// call broken -> visit/1 @11
// call after -> parsed/0 @20
