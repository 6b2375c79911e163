// Session::run_batch: many sources decoded with the words stepped together.
//
// A window of sources is in flight; each round feeds every live hypothesis of
// every source in flight through one scorer pass (score_together, scorer.h),
// then each source's search takes its step on its own rows. A source that
// finishes leaves the window and the next ones are encoded together to take its
// place, so that the passes stay full until the list runs out. The sources are
// taken shortest first (the results go back in the caller's order). Search is the
// same ArSearch as a single decode's, and the model computes every row on its
// own, so the results are those of decoding each source alone.
#include <algorithm>
#ifndef __EMSCRIPTEN__
#include <atomic>
#include <thread>
#endif

#include "ar_search.h"
#include "errors.h"
#include "model_access.h"
#include "network.h"
#include "session.h"

namespace seq2seq {

namespace {

struct InFlight {
  size_t index = 0;
  std::unique_ptr<StepScorer> scorer;
  std::unique_ptr<ArSearch> search;
  std::shared_ptr<const Vocabulary> vocab;  // its output vocabulary (a copy model's holds the source's copy-only tokens)
};

}  // namespace

std::vector<BatchResult> Session::run_batch(const std::vector<std::string>& sources, int window) const {
  if (window < 0) throw UsageError("run_batch: the window must hold at least one source (0: the default)");
  if (window == 0) window = std::max(1, kBatchRows / (opt_.strategy == Strategy::Beam ? opt_.beam_size : 1));
  std::vector<BatchResult> out(sources.size());
  auto fail = [&](size_t i) { out[i].error = std::current_exception(); };

  if (!model_->config().autoregressive()) {  // non-autoregressive: one source at a time
    Session one(model_, opt_);
    for (size_t i = 0; i < sources.size(); ++i) {
      try {
        one.start(sources[i]);
        out[i].results = one.run();
      } catch (const Error&) {
        fail(i);
      }
    }
    return out;
  }

  const Network& net = ModelAccess::network(*model_);
  const SpecialIds& sp = model_->config().tgt_specials;
  // Every source tokenized first (its errors are its own), then taken shortest
  // first: the sources in flight together are of about one length, so that the
  // encoder pads little and they finish at about the same step.
  struct Ready {
    size_t index;
    ReadSource source;
    int cap;
    std::vector<int> prefix;
  };
  // The forced prefix is the options', the same for every source: parsed once, and
  // a bad one is every source's error, as start() gives it each. A copy model's may
  // name a source's copy-only token: its prefix is parsed per source.
  const bool copy = model_->config().copy;
  std::vector<int> prefix;
  std::exception_ptr bad_prefix;
  try {
    if (!copy) prefix = parse_target_tokens(opt_.prefix, model_->target_vocab());
  } catch (const Error&) {
    bad_prefix = std::current_exception();
  }
  std::vector<Ready> ready;
  for (size_t i = 0; i < sources.size(); ++i) {
    try {
      ReadSource source = ModelAccess::read(*model_, sources[i]);
      const int cap = max_length_for(source.input.ids);
      if (bad_prefix) std::rethrow_exception(bad_prefix);
      std::vector<int> own = copy ? parse_target_tokens(opt_.prefix, *source.output_vocab) : prefix;
      ready.push_back({i, std::move(source), cap, std::move(own)});
    } catch (const Error&) {
      fail(i);
    }
  }
  std::stable_sort(ready.begin(), ready.end(),
                   [](const Ready& a, const Ready& b) { return a.source.input.ids.size() < b.source.input.ids.size(); });

  std::vector<InFlight> flight;
  size_t next = 0;
  while (next < ready.size() || !flight.empty()) {
    // Refill the window: the next sources, encoded in one pass.
    std::vector<size_t> index;
    std::vector<SourceInput> ids;
    std::vector<int> caps;
    std::vector<Ready*> taken;
    while (flight.size() + index.size() < static_cast<size_t>(window) && next < ready.size()) {
      Ready& r = ready[next++];
      index.push_back(r.index);
      ids.push_back(std::move(r.source.input));
      caps.push_back(r.cap);
      taken.push_back(&r);
    }
    if (!index.empty()) {
      std::vector<std::unique_ptr<StepScorer>> scorers;
      try {
        scorers = net.step_scorers(ids, caps);
      } catch (const Error&) {  // whose source it was: each alone
        scorers.clear();
        for (size_t k = 0; k < index.size(); ++k) {
          try {
            scorers.push_back(net.step_scorer(ids[k], caps[k]));
          } catch (const Error&) {
            fail(index[k]);
            scorers.push_back(nullptr);
          }
        }
      }
      for (size_t k = 0; k < index.size(); ++k) {
        if (!scorers[k]) continue;
        try {
          InFlight f;
          f.index = index[k];
          f.search = std::make_unique<ArSearch>(*scorers[k], sp, opt_, taken[k]->prefix, caps[k]);
          f.search->results_only();
          f.scorer = std::move(scorers[k]);
          f.vocab = std::move(taken[k]->source.output_vocab);
          flight.push_back(std::move(f));
        } catch (const Error&) {
          fail(index[k]);
        }
      }
    }
    if (flight.empty()) continue;

    // One pass over every live hypothesis in flight, then each search's step.
    std::vector<StepRequest> requests(flight.size());
    for (size_t k = 0; k < flight.size(); ++k) {
      requests[k].scorer = flight[k].scorer.get();
      requests[k].tokens = flight[k].search->next_tokens();
    }
    std::vector<bool> over(flight.size(), false);
    try {
      score_together(requests);
    } catch (const Error&) {  // the pass checks its input before it computes: nothing in it can go on
      for (size_t k = 0; k < flight.size(); ++k) fail(flight[k].index);
      flight.clear();
      continue;
    }
    const CrossAndSelfAttention no_attention;
    for (size_t k = 0; k < flight.size(); ++k) {
      try {
        ArSearch& search = *flight[k].search;
        search.advance(requests[k].logprobs, no_attention);
        if (search.done()) {
          out[flight[k].index].results = search.results();
          fill_text(out[flight[k].index].results, *flight[k].vocab);
          over[k] = true;
        }
      } catch (const Error&) {
        fail(flight[k].index);
        over[k] = true;
      }
    }
    size_t kept = 0;
    for (size_t k = 0; k < flight.size(); ++k)
      if (!over[k]) {
        if (kept != k) flight[kept] = std::move(flight[k]);
        ++kept;
      }
    flight.resize(kept);
  }
  return out;
}

#ifndef __EMSCRIPTEN__
std::vector<BatchResult> run_batch_threads(const std::vector<std::unique_ptr<Session>>& sessions, const std::vector<std::string>& sources) {
  if (sessions.empty()) throw UsageError("run_batch_threads: give at least one session");
  const size_t threads = std::min(sessions.size(), std::max<size_t>(1, sources.size()));
  if (threads == 1) return sessions[0]->run_batch(sources);
  // Chunks of at most one window of words (a longer one steps no faster per word),
  // and at least four per thread, so that the threads finish close together.
  const size_t chunk = std::clamp<size_t>((sources.size() + 4 * threads - 1) / (4 * threads), 1, Session::kBatchRows);
  // The chunks are cut from the list ordered by length, as run_batch orders its own
  // sources: words of one length are stepped together, finish together and pad the
  // encoder little; chunks of the list as given would mix lengths (measured: a fifth
  // more CPU time for greedy search). The results go back in the caller's order.
  std::vector<size_t> order(sources.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sources[a].size() < sources[b].size(); });
  std::vector<BatchResult> out(sources.size());
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> failed(threads);  // what a thread threw besides a source's own error (out of memory)
  auto work = [&](size_t t) {
    try {
      for (;;) {
        const size_t from = next.fetch_add(chunk);
        if (from >= sources.size()) return;
        const size_t to = std::min(sources.size(), from + chunk);
        std::vector<std::string> part;
        part.reserve(to - from);
        for (size_t k = from; k < to; ++k) part.push_back(sources[order[k]]);
        std::vector<BatchResult> got = sessions[t]->run_batch(part);
        for (size_t i = 0; i < got.size(); ++i) out[order[from + i]] = std::move(got[i]);
      }
    } catch (...) {
      failed[t] = std::current_exception();
      next.store(sources.size());  // the others stop after their chunk
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  auto join = [&] {
    for (std::thread& th : pool) th.join();
  };
  try {
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
  } catch (...) {  // a thread the system would not start: those started are stopped and joined
    next.store(sources.size());
    join();
    throw;
  }
  work(0);
  join();
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
  return out;
}
#endif

}  // namespace seq2seq
