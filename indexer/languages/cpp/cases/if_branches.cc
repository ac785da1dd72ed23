int parse(int x) {
#if defined(FAST)
  if (x > 0) {
#else
  if (x >= 0) {
#endif
    return fast(x);
  }
  return "{" == 0;
}

#ifdef _WIN32
int now() { return win_now(); }
#else
int now() { return posix_now(); }
#endif

int after() { return parse(1); }
// expect:
// syntax-errors: 1 -- the #if opening a brace it does not close: tree-sitter still misses an #endif
// entity function parse 1-10 -- the #else branch opens the same brace: read as blank, else parse swallows the file
// entity function now 13-13
// entity function now#2 15-15 -- balanced branches are all read
// entity function after 18-18
// call parse -> fast/1 @7
// call now -> win_now/0 @13
// call now#2 -> posix_now/0 @15
// call after -> parse/1 @18
// export parse local=parse
// export now local=now
// export now local=now#2
// export after local=after
