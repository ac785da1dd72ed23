#include "linkage.h"

int add(int a, int b);
static int twice(int x);
extern char *name_of(int id), *label_of(void);
int counter, (*hook)(void);

static int twice(int x)
{
    return add(x, x);
}

int add(int a, int b)
{
    return a + b;
}

char *name_of(int id)
{
    return twice(id) ? "some" : "none";
}

int (unexpanded)(void)
{
    return 0;
}

int printf_like(const char *format, ...)
{
    return 0;
}
// expect:
// entity function twice 8-11 -- a prototype is no entity; a static definition is
// entity function add 13-16
// entity function name_of 18-21 -- returns a pointer
// entity function unexpanded 23-26 -- parenthesized: no function-like macro expands it
// entity function printf_like 28-31
// import linkage.h @1 name=*
// export add -- prototypes: the name only
// export name_of
// export label_of
// export add local=add -- definitions: external linkage unless static (twice)
// export name_of local=name_of
// export unexpanded local=unexpanded
// export printf_like local=printf_like
// call twice -> add/2 @10
// call name_of -> twice/1 @20
