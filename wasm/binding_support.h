// What the decoder's Embind module (bindings.cpp) and the trainer's
// (train_bindings.cpp) share: both answer a failure the same way, and both copy
// JS values into the wasm heap the same way, so one copy of each lives here.
//
// No C++ exception crosses into JavaScript: every fallible call catches and
// returns {error, kind} instead, and the JS wrapper (wasm/src/index.js,
// wasm/src/train.js) turns that into a thrown Seq2SeqError. Throwing a JS error
// from inside wasm would skip C++ destructors and leak; returning keeps both heaps
// clean. For that, every allocation a call makes happens inside its guard: texts
// arrive as JS values and are copied into the heap by text_of(), never by Embind's
// std::string argument conversion (see there).
#ifndef SEQ2SEQ_WASM_BINDING_SUPPORT_H
#define SEQ2SEQ_WASM_BINDING_SUPPORT_H

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "errors.h"

namespace seq2seq::binding {

using emscripten::val;

// `message` is UTF-8 (a C++ message can quote a character of the source), and is
// copied into a std::string to cross; `kind` is ASCII and crosses as it is.
inline val error_value(const char* kind, const std::string& message) {
  val e = val::object();
  e.set("error", message);
  e.set("kind", val(kind));
  return e;
}

// What a failed allocation answers: nothing here allocates in the wasm heap (an
// ASCII literal goes to JS as it is), so that it can answer when the heap is full.
inline val out_of_memory() {
  val e = val::object();
  e.set("error", val("out of memory"));
  e.set("kind", val("OutOfMemory"));
  return e;
}

// The {error, kind} of the exception being handled, for the kinds every module
// has: call it from inside a catch block only (it rethrows that exception to sort
// it). A module whose errors are of more kinds sorts its own first and hands the
// rest here (train_bindings.cpp).
inline val error_in_flight() {
  try {
    throw;
  } catch (const ModelError& e) {
    return error_value("ModelError", e.what());
  } catch (const InputError& e) {
    return error_value("InputError", e.what());
  } catch (const UsageError& e) {
    return error_value("UsageError", e.what());
  } catch (const std::bad_alloc&) {
    return out_of_memory();
  } catch (const std::exception& e) {
    return error_value("Error", e.what());
  } catch (...) {
    return error_value("Error", "an exception of unknown type");
  }
}

// f()'s value, or what `answer` (called inside the catch block) makes of what it threw.
template <typename F, typename Answer>
val guarded(F&& f, Answer&& answer) {
  try {
    return f();
  } catch (...) {
    return answer();
  }
}

template <typename F>
val guarded(F&& f) {
  return guarded(f, error_in_flight);
}

// A JS string's UTF-8 as a std::string, allocated in C++ so that a full heap is a
// bad_alloc that guarded() reports as OutOfMemory. Embind's own std::string
// argument conversion runs before the call, outside any try: its JS glue mallocs
// a copy of the text, and when malloc fails (returning 0) writes the text from
// address 0 on, over the heap's static data, so that every later call fails
// ("memory access out of bounds"); then C++ copies that into a std::string, and a
// bad_alloc there escapes to JS as a bare number. The JS wrapper has refused
// strings longer than limits::kMaxTextBytes UTF-16 units, so this copies at most
// three times that; the engine refuses a text whose UTF-8 is longer than that.
inline std::string text_of(const val& text) {
  static const val encoder = val::global("TextEncoder").new_();
  const val bytes = encoder.call<val>("encode", text);
  const size_t n = bytes["length"].as<size_t>();
  std::string s(n, '\0');
  if (n > 0) val(emscripten::typed_memory_view(n, reinterpret_cast<unsigned char*>(&s[0]))).call<void>("set", bytes);
  return s;
}

// A JS Uint8Array's bytes, copied into the heap inside guarded() as text_of() does.
inline std::vector<uint8_t> bytes_of(const val& bytes) {
  const size_t n = bytes["length"].as<size_t>();
  std::vector<uint8_t> buf(n);
  if (n > 0) val(emscripten::typed_memory_view(n, buf.data())).call<void>("set", bytes);
  return buf;
}

// A JS typed array (`type`: "Float32Array", "Uint8Array") holding a copy of v: a
// copy out of the wasm heap, as the vector dies with the call.
template <typename T>
val typed_array(const char* type, const std::vector<T>& v) {
  return val::global(type).new_(emscripten::typed_memory_view(v.size(), v.data()));
}

}  // namespace seq2seq::binding

#endif  // SEQ2SEQ_WASM_BINDING_SUPPORT_H
