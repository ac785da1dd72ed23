static int legacy(a, b)
    int a;
    char *b;
{
    return a(b);
}

PHP_FUNCTION(strlen)
{
    legacy(1, 0);
}

static int FN(bar)(int x)
{
    return legacy(x, 0);
}
// expect:
// entity function legacy 1-6 -- K&R: parameters declared after the list; a(b) calls a parameter
// entity function strlen 8-11 -- a macro wrapping the name: named by its argument, no external linkage
// entity function bar 13-16
// no exports
// call strlen -> legacy/2 @10
// call bar -> legacy/2 @15
