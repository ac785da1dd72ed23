template <typename Context, typename... Args>
class arg_store
#if OLD_GCC && OLD_GCC < 409
    // Work around a template argument substitution bug.
    : public basic_args<Context>
#endif
{
 public:
  int size() const { return count(); }
};

#if HAS_LOCALE
#include "locale.h"
#endif

int after() { return 1; }
// expect:
// entity class arg_store 1-10 -- a base clause under #if: its directive lines read as blank, else the class is lost
// entity method arg_store.size 9-9 parent=arg_store
// entity function after 16-16
// inherit arg_store -> basic_args @5
// call arg_store.size -> count/0 @9
// import locale.h @13 name=* -- a one-branch #if of includes: the includes are read as before
// export arg_store.size local=arg_store.size
// export after local=after
