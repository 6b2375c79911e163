// Embind bindings of the trainer's module (seq2seq_train.wasm), a module apart
// from the decoder's (seq2seq_core.wasm), so that decoding never downloads the
// trainer: TrainerHandle over a TrainingRun (src/train/run.h), the loop
// `seq2seq train` runs, driven a call at a time by wasm/src/train.js.
//
// As in bindings.cpp, no C++ exception crosses into JavaScript: each call catches
// and returns {error, kind} (with `option` and `range` for an option out of range,
// `step` for a run that diverged), which the JS wrapper throws as a Seq2SeqError.
// What the two modules share (the guard, the copies into the heap) is in
// binding_support.h; the trainer's own kinds of error are sorted here.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "binding_support.h"
#include "errors.h"
#include "train/probe.h"
#include "train/run.h"
#include "train/tasks.h"
#include "train/training_options.h"

using emscripten::val;
using namespace seq2seq;
using namespace seq2seq::train;
using seq2seq::binding::bytes_of;
using seq2seq::binding::error_in_flight;
using seq2seq::binding::error_value;
using seq2seq::binding::text_of;
using seq2seq::binding::typed_array;

namespace {

val byte_array(const std::vector<uint8_t>& v) { return typed_array("Uint8Array", v); }

// The {error, kind} of the exception being handled: the trainer's own kinds
// first, each with its own fields (the shared sorting would answer them as plain
// Error or UsageError), then the kinds both modules share.
val trainer_error_in_flight() {
  try {
    throw;
  } catch (const DivergedError& e) {
    val v = error_value("DivergedError", e.what());
    v.set("step", e.step);
    return v;
  } catch (const OptionError& e) {
    val v = error_value("UsageError", e.what());
    v.set("option", e.option);
    if (!e.range.empty()) v.set("range", e.range);
    return v;
  } catch (const CheckpointError& e) {
    return error_value("ModelError", e.what());
  } catch (const DataError& e) {
    return error_value("InputError", e.what());
  } catch (...) {
    return error_in_flight();
  }
}

template <typename F>
val guarded(F&& f) {
  return seq2seq::binding::guarded(f, trainer_error_in_flight);
}

// The writer of a visit_fields() (the progress record's, the probe's): one JS object.
struct ObjectWriter {
  val& out;
  template <typename T>
  void operator()(const char* name, const T& x) {
    if constexpr (std::is_same<T, std::string>::value) {
      out.set(name, x);
    } else if constexpr (std::is_same<T, std::vector<std::string>>::value || std::is_same<T, std::vector<int>>::value) {
      val a = val::array();
      for (size_t i = 0; i < x.size(); ++i) a.set(i, x[i]);
      out.set(name, a);
    } else if constexpr (std::is_same<T, std::vector<float>>::value) {
      out.set(name, typed_array("Float32Array", x));
    } else {
      out.set(name, x);
    }
  }
};

template <typename T>
val object_of(const T& x) {
  val o = val::object();
  visit_fields(x, ObjectWriter{o});
  return o;
}

template <typename T>
val option_value(const T& v) {
  if constexpr (std::is_enum<T>::value) return val(std::string(to_string(v)));
  else if constexpr (std::is_same<T, uint64_t>::value) return val(static_cast<double>(v));  // the JS side allows safe integers only
  else return val(v);
}

// The options as the JS wrapper passes them: an object keyed by C++ names, each
// value already of its type (wasm/src/train.js checks names and types; the task's
// defaults are the start, and validate() checks the ranges).
TrainingOptions options_from(const val& given) {
  TrainingOptions o = task_defaults(Task::Reverse);
  if (given.hasOwnProperty("task") && !from_string(text_of(given["task"]), o.task)) throw UsageError("unknown task");
  o = task_defaults(o.task);
  for_each_training_option([&](const char* name, auto field) {
    if (!given.hasOwnProperty(name)) return;
    using T = std::decay_t<decltype(o.*field)>;
    const val v = given[name];
    if constexpr (std::is_enum<T>::value) {
      if (!from_string(text_of(v), o.*field)) throw UsageError(std::string("training option ") + name + " has no value " + text_of(v));
    } else if constexpr (std::is_same<T, uint64_t>::value) {
      o.*field = static_cast<uint64_t>(v.as<double>());
    } else {
      o.*field = v.as<T>();
    }
  });
  return o;
}

class TrainerHandle {
 public:
  // `options`: see options_from(); `data`: the g2p data's text or null; `resume`:
  // a checkpoint's bytes or null.
  val create(const val& options, const val& data, const val& resume) {
    return guarded([&] {
      const TrainingOptions o = options_from(options);
      validate(o);
      std::string text;
      const bool has_data = !data.isNull() && !data.isUndefined();
      if (has_data) text = text_of(data);
      if (!resume.isNull() && !resume.isUndefined()) run_ = TrainingRun::resume(bytes_of(resume), o, has_data ? &text : nullptr);
      else run_ = std::make_unique<TrainingRun>(o, has_data ? &text : nullptr);
      return val::undefined();
    });
  }

  val info() {
    return guarded([&] {
      TrainingRun& r = require();
      const ModelConfig& c = r.model_config();
      val o = val::object();
      o.set("name", c.name);
      o.set("parameters", static_cast<double>(r.trainer().params().size()));
      o.set("memoryBytes", static_cast<double>(r.trainer().memory_bytes()));
      o.set("sourceVocabSize", static_cast<int>(c.src_vocab.size()));
      o.set("targetVocabSize", static_cast<int>(c.tgt_vocab.size()));
      o.set("heldOut", static_cast<int>(r.task().held_out().size()));
      o.set("lossFloor", r.loss_floor());
      o.set("step", r.trainer().steps_taken());
      o.set("steps", r.options().steps);
      o.set("done", r.done());
      val opts = val::object();
      for_each_training_option([&](const char* name, auto field) { opts.set(name, option_value(r.options().*field)); });
      o.set("options", opts);
      return o;
    });
  }

  bool done() const { return run_ && run_->done(); }

  // Up to n steps (TrainingRun::step: to the next evaluation point at most): the record.
  val step(int n) {
    return guarded([&] {
      TrainingRun& r = require();
      if (r.done()) throw UsageError("the run has taken its " + std::to_string(r.options().steps) + " steps");
      if (n < 1) throw UsageError("step(n) needs n >= 1");
      return object_of(r.step(n));
    });
  }

  val probe(int index) {
    return guarded([&] { return object_of(train::probe(require(), index)); });
  }

  // The held-out examples, for a page to show or pick a probe from.
  val heldOut() {
    return guarded([&] {
      val a = val::array();
      const auto& h = require().task().held_out();
      for (size_t i = 0; i < h.size(); ++i) {
        val e = val::object();
        e.set("source", h[i].source);
        e.set("target", h[i].target);
        a.set(i, e);
      }
      return a;
    });
  }

  val evaluate() {
    return guarded([&] { return val(require().evaluate().word_accuracy); });
  }

  val exportModel(bool int8) {
    return guarded([&] { return byte_array(require().export_model(int8 ? ExportStorage::Int8 : ExportStorage::F32)); });
  }

  val checkpoint() {
    return guarded([&] { return byte_array(require().checkpoint()); });
  }

 private:
  TrainingRun& require() {
    if (!run_) throw UsageError("no training run: create() first");
    return *run_;
  }
  std::unique_ptr<TrainingRun> run_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(seq2seq_train) {
  emscripten::class_<TrainerHandle>("TrainerHandle")
      .constructor<>()
      .function("create", &TrainerHandle::create)
      .function("info", &TrainerHandle::info)
      .function("done", &TrainerHandle::done)
      .function("step", &TrainerHandle::step)
      .function("probe", &TrainerHandle::probe)
      .function("heldOut", &TrainerHandle::heldOut)
      .function("evaluate", &TrainerHandle::evaluate)
      .function("exportModel", &TrainerHandle::exportModel)
      .function("checkpoint", &TrainerHandle::checkpoint);
}
