class text_style {
 public:
  FMT_CONSTEXPR text_style& operator&=(const text_style& rhs) FMT_NOEXCEPT {
    return and_assign(rhs, MAX_BITS);
  }
  friend FMT_CONSTEXPR
  text_style operator&(text_style lhs, const text_style& rhs) FMT_NOEXCEPT { return lhs &= rhs; }
  FMT_CONSTEXPR bool has_foreground() const FMT_NOEXCEPT { return set_; }
};

FMT_EXPORT FMT_CONSTEXPR auto fg(int color) -> text_style { return text_style(color); }

simdjson_really_inline simdjson_result<value> document::at_pointer(int p) noexcept { return at(p); }
really_inline document::tape_type document::tape_ref::type() const noexcept { return 0; }
// expect:
// syntax-errors: 2 -- the lower-case macros before the return types of the last two
// entity class text_style 1-9
// entity method text_style.operator&= 3-5 parent=text_style -- FMT_CONSTEXPR and FMT_NOEXCEPT read as blank
// entity method text_style.operator& 7-7 parent=text_style -- a friend defined in its class
// entity method text_style.has_foreground 8-8 parent=text_style
// entity function fg 11-11 -- two macros in a row
// entity method document.at_pointer 13-13 -- the return type tree-sitter glued to the name is dropped
// entity method document.tape_ref.type 14-14
// member document.at_pointer -> document @13
// member document.tape_ref.type -> document.tape_ref @14
// call text_style.operator&= -> and_assign/2 @4 -- MAX_BITS in an expression is left alone
// call fg -> text_style/1 @11
// call document.at_pointer -> at/1 @13
// export text_style.operator&= local=text_style.operator&=
// export text_style.operator& local=text_style.operator&
// export text_style.has_foreground local=text_style.has_foreground
// export fg local=fg
// export document.at_pointer local=document.at_pointer
// export document.tape_ref.type local=document.tape_ref.type
