#ifdef _WIN32
int now(void)
{
    return win_ticks();
}
#elif defined(__APPLE__)
int now(void)
{
    return mach_ticks();
}
#else
int now(void)
{
    return posix_ticks();
}
#endif

int later(void)
{
#if FAST
    return now() + 1;
#else
    return now() + 2;
#endif
}
// expect:
// entity function now 2-5 -- every branch is read: the preprocessor is not run
// entity function now#2 7-10
// entity function now#3 12-15
// entity function later 18-25
// export now local=now
// export now local=now#2
// export now local=now#3
// export later local=later
// call now -> win_ticks/0 @4
// call now#2 -> mach_ticks/0 @9
// call now#3 -> posix_ticks/0 @14
// call later -> now/0 @21
// call later -> now/0 @23
