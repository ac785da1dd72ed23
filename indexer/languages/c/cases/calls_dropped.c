#include <stdlib.h>

#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define emit write_out

typedef int (*handler)(int);

static handler handlers[2];
static int (*fallback)(int);

struct ops {
    int (*run)(int);
};

int through(handler on_done, struct ops *ops, int (*each)(int))
{
    int (*local)(int) = fallback;
    int value = MAX(1, 2);
    on_done(value);
    each(value);
    local(value);
    fallback(value);
    handlers[0](value);
    ops->run(value);
    (*local)(value);
    emit(value);
    return helper(value, free(0));
}
// expect:
// entity function through 15-28
// -- parameters, locals and file-scope variables holding function pointers, array and field calls, and the
// -- file's macros (function-like or not) are no functions: only helper and free are calls
// call through -> helper/2 @27
// call through -> free/1 @27
