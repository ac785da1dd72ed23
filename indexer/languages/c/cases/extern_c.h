#ifndef MEM_H
#define MEM_H
#if defined (__cplusplus)
extern "C" {
#endif

MEM_STATIC unsigned read16(const void *p)
{
    return load16(p);
}

int mem_check(void);

#if defined (__cplusplus)
}
#endif
#endif
// expect:
// syntax-errors: 1 -- the macro standing for `static inline`
// entity function read16 7-10 -- inside `extern "C" {`, which the #if opens for C++ and closes at the end
// export read16 local=read16 -- MEM_STATIC is not known to mean static
// export mem_check
// call read16 -> load16/1 @9
