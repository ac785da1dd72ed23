namespace fmt {
void vformat_to(int out) {
  struct format_handler {
    int on_arg_id(int id) { return check(id); }
  };
  auto on_error = [](const char* message) { report(message); };
  format_handler handler;
  handler.on_arg_id(out);
}
}  // namespace fmt
// expect:
// entity function fmt.vformat_to 2-9
// entity struct fmt.vformat_to.format_handler 3-5 parent=fmt.vformat_to
// entity method fmt.vformat_to.format_handler.on_arg_id 4-4 parent=fmt.vformat_to.format_handler -- a local class's method is a Function
// call fmt.vformat_to -> report/1 @6 -- a lambda's call is the function's
// call fmt.vformat_to -> format_handler.on_arg_id/1 @8
// call fmt.vformat_to.format_handler.on_arg_id -> check/1 @4 -- not also the enclosing function's
// export fmt.vformat_to local=fmt.vformat_to
