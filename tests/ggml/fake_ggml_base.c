// A stand-in libggml-base.so of another ggml version, for the loader's version check
// (tests/ggml/loader_test.cpp).
const char* ggml_version(void) {
  return "0.22.0";
}
const char* ggml_commit(void) {
  return "0000000";
}
