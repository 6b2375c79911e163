// Search against hand-built toy scorers, where the right answer is known.
#include <cmath>
#include <set>

#include <catch2/catch.hpp>

#include "ar_search.h"
#include "errors.h"
#include "nar_search.h"
#include "random.h"
#include "toy_scorers.h"

using namespace seq2seq;
using namespace seq2seq_test;

namespace {

DecodingOptions beam(int k, LengthNorm norm = LengthNorm::None, int n_best = 1) {
  DecodingOptions o;
  o.strategy = k == 1 ? Strategy::Greedy : Strategy::Beam;
  o.beam_size = k;
  o.length_norm = norm;
  o.n_best = n_best;
  return o;
}

std::vector<Snapshot> run_all(ArSearch& s) {
  std::vector<Snapshot> out;
  while (!s.done()) out.push_back(s.step());
  return out;
}

}  // namespace

TEST_CASE("the course example: greedy cannot go back, beam 2 finds the better sequence", "[search][course]") {
  ToyStepScorer g(course_example), b(course_example);
  ArSearch greedy(g, toy_specials(), beam(1), {}, 10);
  ArSearch beam2(b, toy_specials(), beam(2), {}, 10);
  const auto gs = run_all(greedy);
  const auto bs = run_all(beam2);
  const Result gr = greedy.results().at(0), br = beam2.results().at(0);
  CHECK(gr.tokens == std::vector<int>{A});            // A, then EOS (0.4): P = 0.6 * 0.4 = 0.24
  CHECK(gr.logprob == Approx(std::log(0.24)).epsilon(1e-6));
  CHECK(br.tokens == std::vector<int>{B, B});         // B, B, EOS: P = 0.4 * 0.9 * 0.9 = 0.324
  CHECK(br.logprob == Approx(std::log(0.324)).epsilon(1e-6));
  CHECK(br.logprob > gr.logprob);
  // Greedy's first step kept A and dropped B for good.
  REQUIRE(gs.front().live.size() == 1);
  CHECK(gs.front().live[0].tokens == std::vector<int>{A});
  // Beam 2 kept both after step 1.
  REQUIRE(bs.front().live.size() == 2);
  CHECK(bs.front().live[0].tokens == std::vector<int>{A});
  CHECK(bs.front().live[1].tokens == std::vector<int>{B});
}

TEST_CASE("greedy is beam search with one hypothesis", "[search]") {
  ToyStepScorer a(course_example), b(course_example);
  DecodingOptions one = beam(1);
  one.strategy = Strategy::Beam;
  ArSearch g(a, toy_specials(), beam(1), {}, 10), b1(b, toy_specials(), one, {}, 10);
  run_all(g);
  run_all(b1);
  CHECK(g.results().at(0).tokens == b1.results().at(0).tokens);
  CHECK(g.results().at(0).logprob == b1.results().at(0).logprob);
}

TEST_CASE("length normalisation: the formulas by number", "[search][length]") {
  CHECK(normalized_score(-6.0, 4, LengthNorm::None, 0.6) == -6.0);
  CHECK(normalized_score(-6.0, 4, LengthNorm::Average, 0.6) == Approx(-1.5));
  CHECK(normalized_score(-6.0, 4, LengthNorm::Gnmt, 0.6) == Approx(-6.0 / std::pow(9.0 / 6.0, 0.6)));
  CHECK(normalized_score(-6.0, 4, LengthNorm::Gnmt, 0.6) == Approx(-4.70428).epsilon(1e-4));
  CHECK(normalized_score(-6.0, 1, LengthNorm::Gnmt, 0.0) == -6.0);  // alpha 0: no normalisation
}

TEST_CASE("length normalisation changes the winner", "[search][length]") {
  // Short: A EOS = 0.5 * 0.8 = 0.4 (log -0.916, average -0.458).
  // Long:  B B B EOS = 0.5 * 0.8 * 0.8 * 0.7 = 0.224 (log -1.496, average -0.374).
  auto model = [](const std::vector<int>& p) -> std::map<int, double> {
    if (p.empty()) return {{A, 0.5}, {B, 0.5}};
    if (p == std::vector<int>{A}) return {{EOS, 0.8}, {C, 0.2}};
    if (p == std::vector<int>{B} || p == std::vector<int>{B, B}) return {{B, 0.8}, {EOS, 0.1}, {C, 0.1}};
    if (p == std::vector<int>{B, B, B}) return {{EOS, 0.7}, {C, 0.3}};
    return {{EOS, 0.01}, {C, 0.99}};
  };
  ToyStepScorer s1(model), s2(model);
  ArSearch none(s1, toy_specials(), beam(4, LengthNorm::None), {}, 8);
  ArSearch avg(s2, toy_specials(), beam(4, LengthNorm::Average), {}, 8);
  run_all(none);
  run_all(avg);
  CHECK(none.results().at(0).tokens == std::vector<int>{A});
  CHECK(avg.results().at(0).tokens == std::vector<int>{B, B, B});
  CHECK(avg.results().at(0).score == Approx(std::log(0.224) / 4).epsilon(1e-6));
  CHECK(avg.results().at(0).length == 4);
}

TEST_CASE("beam search stops early once nothing live can win", "[search]") {
  // EOS first with 0.9: nothing that continues can ever beat log(0.9) under None.
  auto model = [](const std::vector<int>& p) -> std::map<int, double> {
    if (p.empty()) return {{EOS, 0.9}, {A, 0.1}};
    return {{A, 0.5}, {EOS, 0.5}};
  };
  ToyStepScorer s(model);
  ArSearch search(s, toy_specials(), beam(3), {}, 12);
  run_all(search);
  CHECK(s.calls == 1);
  CHECK(search.results().at(0).tokens.empty());
}

TEST_CASE("min length, max length and a forced prefix", "[search]") {
  SECTION("EOS is withheld below min_length") {
    ToyStepScorer s(course_example);
    DecodingOptions o = beam(1);
    o.min_length = 2;
    ArSearch g(s, toy_specials(), o, {}, 10);
    run_all(g);
    CHECK(g.results().at(0).tokens.size() >= 2);
  }
  SECTION("EOS is forced at max length, with its own probability") {
    ToyStepScorer s([](const std::vector<int>&) { return std::map<int, double>{{A, 0.9}, {EOS, 0.1}}; });
    ArSearch g(s, toy_specials(), beam(1), {}, 3);
    const auto snaps = run_all(g);
    CHECK(g.results().at(0).tokens == std::vector<int>{A, A});
    CHECK(g.results().at(0).logprob == Approx(std::log(0.9 * 0.9 * 0.1)));
    CHECK(snaps.back().finished.at(0).forced);
  }
  SECTION("a forced prefix: 'what if the model had said B first?'") {
    ToyStepScorer s(course_example);
    ArSearch g(s, toy_specials(), beam(1), {B}, 10);
    const auto snaps = run_all(g);
    CHECK(g.results().at(0).tokens == std::vector<int>{B, B});
    CHECK(snaps.front().live.at(0).forced);
    CHECK(snaps.front().live.at(0).logprob == Approx(std::log(0.4)));  // the model's own probability, not 1
  }
  SECTION("prefix and length errors") {
    ToyStepScorer s(course_example);
    CHECK_THROWS_AS(ArSearch(s, toy_specials(), beam(1), {A, A, A}, 3), UsageError);
    CHECK_THROWS_AS(ArSearch(s, toy_specials(), beam(1), {PAD}, 10), InputError);
    CHECK_THROWS_AS(ArSearch(s, toy_specials(), beam(1), {EOS}, 10), InputError);
    CHECK_THROWS_AS(ArSearch(s, toy_specials(), beam(1), {}, 17), UsageError);  // beyond the scorer's capacity
  }
}

TEST_CASE("beam snapshots are consistent", "[search][snapshot]") {
  ToyStepScorer s(course_example);
  ArSearch search(s, toy_specials(), beam(3, LengthNorm::Average, 3), {}, 6);
  std::set<int> known = {0};
  int prev_step = 0;
  Snapshot last;
  while (!search.done()) {
    last = search.step();
    CHECK(last.step == prev_step + 1);
    prev_step = last.step;
    CHECK(static_cast<int>(last.live.size()) <= 3);
    for (const auto* list : {&last.live, &last.finished})
      for (const auto& h : *list) {
        CHECK(known.count(h.parent) == 1);  // parents were seen before: the nodes form a tree
        CHECK(h.token_prob >= 0.0f);
        CHECK(h.token_prob <= 1.0f);
        CHECK(h.score == Approx(h.logprob / h.tokens.size()));
        for (size_t i = 1; i < h.candidates.size(); ++i) CHECK(h.candidates[i - 1].prob >= h.candidates[i].prob);
        for (const auto& c : h.candidates) CHECK((c.prob >= 0.0f && c.prob <= 1.0f));
        CHECK(h.attention.size() == 2);
      }
    for (const auto& h : last.live) known.insert(h.id);
    for (const auto& h : last.finished) known.insert(h.id);
    for (const auto& p : last.pruned) CHECK(known.count(p.parent) == 1);
    for (size_t i = 1; i < last.finished.size(); ++i) CHECK(last.finished[i - 1].score >= last.finished[i].score);
  }
  CHECK(last.done);
  REQUIRE(last.results.size() == 3);
  const auto& best = last.finished[0].tokens;  // ends with EOS; results drop it
  CHECK(best.back() == EOS);
  CHECK(last.results[0].tokens == std::vector<int>(best.begin(), best.end() - 1));
  CHECK_THROWS_AS(search.step(), UsageError);
}

TEST_CASE("sampling is reproducible for a seed and honours top-k", "[search][sample]") {
  auto draw = [](uint64_t seed, int top_k, int n) {
    ToyStepScorer s([](const std::vector<int>& p) {
      if (p.size() >= 3) return std::map<int, double>{{EOS, 0.6}, {A, 0.2}, {B, 0.2}};
      return std::map<int, double>{{A, 0.4}, {B, 0.35}, {C, 0.2}, {EOS, 0.05}};
    });
    DecodingOptions o;
    o.strategy = Strategy::Sample;
    o.seed = seed;
    o.top_k = top_k;
    o.n_best = n;
    ArSearch search(s, toy_specials(), o, {}, 12);
    run_all(search);
    std::vector<std::vector<int>> out;
    for (const auto& r : search.results()) out.push_back(r.tokens);
    return out;
  };
  CHECK(draw(7, 0, 8) == draw(7, 0, 8));
  CHECK(draw(7, 0, 8) != draw(8, 0, 8));
  CHECK(draw(7, 0, 8).size() == 8);
  for (const auto& seq : draw(3, 1, 4)) CHECK(seq == std::vector<int>{A, A, A});  // top-k 1 is greedy
}

TEST_CASE("sampling says where its draw fell and what it left out", "[search][sample]") {
  // UNK takes a tenth of the model's mass; search may not emit it, so the distribution
  // drawn from is A, B, EOS renormalised over 0.9.
  ToyStepScorer s([](const std::vector<int>&) { return std::map<int, double>{{A, 0.5}, {B, 0.3}, {UNK, 0.1}, {EOS, 0.1}}; });
  DecodingOptions o;
  o.strategy = Strategy::Sample;
  o.seed = 11;
  o.min_length = 1;
  ArSearch search(s, toy_specials(), o, {B}, 12);
  Random rng(o.seed);
  const std::map<int, double> below = {{A, 0.0}, {B, 0.5 / 0.9}, {EOS, 0.8 / 0.9}};
  int drawn = 0;
  for (const Snapshot& snap : run_all(search))
    for (const auto* list : {&snap.live, &snap.finished})
      for (const auto& h : *list) {
        if (static_cast<int>(h.tokens.size()) != snap.step) continue;  // made at an earlier step
        if (h.forced) {  // the prefix's B: nothing drawn, nothing left out (its uniform is taken all the same)
          rng.uniform();
          CHECK(h.draw == -1);
          CHECK(h.drawn_below == -1);
          CHECK(h.left_out.empty());
          continue;
        }
        ++drawn;
        CHECK(h.draw == rng.uniform());  // one uniform per draw, in order
        CHECK(h.drawn_below == Approx(below.at(h.tokens.back())));
        CHECK(h.drawn_below <= h.draw);
        CHECK(h.draw < h.drawn_below + h.token_drawn_prob + 1e-6);
        std::vector<int> out;
        for (const auto& x : h.left_out) {
          out.push_back(x.token);
          CHECK(x.drawn_prob == 0.0f);
          CHECK(x.prob == Approx(0.1));
        }
        CHECK(out == std::vector<int>{UNK});
      }
  CHECK(drawn >= 1);

  SECTION("below the minimum length EOS is left out too, and the other strategies say nothing of a draw") {
    ToyStepScorer s2([](const std::vector<int>&) { return std::map<int, double>{{A, 0.5}, {B, 0.3}, {UNK, 0.1}, {EOS, 0.1}}; });
    o.min_length = 2;
    ArSearch two(s2, toy_specials(), o, {}, 12);
    const Snapshot first = two.step();
    const HypothesisView& h = first.live.at(0);
    REQUIRE(h.left_out.size() == 2);
    CHECK(h.left_out[0].token == UNK);
    CHECK(h.left_out[1].token == EOS);
    CHECK(h.token_drawn_prob == Approx(h.tokens.back() == A ? 0.625 : 0.375));
    ToyStepScorer s3([](const std::vector<int>&) { return std::map<int, double>{{A, 0.5}, {B, 0.3}, {UNK, 0.1}, {EOS, 0.1}}; });
    ArSearch greedy(s3, toy_specials(), beam(1), {}, 12);
    const Snapshot g = greedy.step();
    CHECK(g.live.at(0).draw == -1);
    CHECK(g.live.at(0).drawn_below == -1);
    CHECK(g.live.at(0).left_out.empty());
  }
}

TEST_CASE("Mask-Predict: the length beam, the re-mask schedule and early stop", "[search][nar]") {
  ToyParallelScorer s;
  // Lengths 0..6: 3 most likely, then 4, then 2.
  s.length_lp = {std::log(0.01f), std::log(0.04f), std::log(0.15f), std::log(0.5f), std::log(0.25f), std::log(0.03f), std::log(0.02f)};
  s.dist = [](int len, int pos, const std::vector<int>&) -> std::map<int, double> {
    // Length 4 is confident, length 3 is not: the length beam must pick 4 by average log-prob.
    const double top = len == 4 ? 0.9 - 0.1 * pos : 0.5 - 0.1 * pos;
    return {{A + pos % 3, top}, {EOS, 1 - top}};
  };
  SECTION("the schedule: floor(N (T-t+1) / T)") {
    CHECK(NarSearch::masks_at(10, 1, 4) == 10);
    CHECK(NarSearch::masks_at(10, 2, 4) == 7);
    CHECK(NarSearch::masks_at(10, 3, 4) == 5);
    CHECK(NarSearch::masks_at(10, 4, 4) == 2);
    CHECK(NarSearch::masks_at(5, 10, 10) == 0);
  }
  SECTION("length beam of 3 picks by average log-probability") {
    DecodingOptions o;
    o.strategy = Strategy::Nar;
    o.length_candidates = 3;
    o.iterations = 1;
    NarSearch search(s, toy_specials(), o, 6);
    CHECK(search.lengths() == std::vector<int>{3, 4, 2});
    const Snapshot snap = search.step();
    CHECK(snap.done);
    CHECK(s.calls == 1);  // all three lengths in one decoder pass
    REQUIRE(snap.drafts.size() == 3);
    double best = -1e9;
    int best_i = -1;
    for (size_t i = 0; i < snap.drafts.size(); ++i)
      if (snap.drafts[i].avg_logprob > best) { best = snap.drafts[i].avg_logprob; best_i = static_cast<int>(i); }
    CHECK(snap.best_draft == best_i);
    CHECK(snap.drafts[static_cast<size_t>(best_i)].length == 4);
    CHECK(search.results().at(0).tokens == std::vector<int>{A, B, C, A});
    for (const auto& d : snap.drafts) CHECK(d.score == d.avg_logprob);  // weight 0: Mask-Predict's rule
  }
  SECTION("a length score weight adds log P(length): a large one lets the length head decide") {
    DecodingOptions o;
    o.strategy = Strategy::Nar;
    o.length_candidates = 3;
    o.iterations = 1;
    o.length_score_weight = 10.0f;
    NarSearch search(s, toy_specials(), o, 6);
    const Snapshot snap = search.step();
    REQUIRE(snap.drafts.size() == 3);
    for (const auto& d : snap.drafts) {
      CHECK(d.length_logprob == Approx(s.length_lp[static_cast<size_t>(d.length)]));
      CHECK(d.score == Approx(d.avg_logprob + 10.0 * d.length_logprob));
    }
    CHECK(snap.drafts[static_cast<size_t>(snap.best_draft)].length == 3);  // P(3) = 0.5 against P(4) = 0.25
    const auto results = search.results();
    CHECK(results.at(0).score == Approx(snap.drafts[static_cast<size_t>(snap.best_draft)].score));
    CHECK(results.at(0).tokens.size() <= 3);
  }
  SECTION("a length score weight outside [0, 10] is a usage error") {
    DecodingOptions o;
    o.strategy = Strategy::Nar;
    o.length_score_weight = -0.5f;
    CHECK_THROWS_WITH(validate(o), Catch::Contains("length_score_weight"));
    o.length_score_weight = std::nanf("");
    CHECK_THROWS_WITH(validate(o), Catch::Contains("length_score_weight"));
    o.length_score_weight = 11.0f;
    CHECK_THROWS_AS(validate(o), UsageError);
  }
  SECTION("each iteration re-masks exactly the scheduled count of least confident tokens") {
    // A draft whose token at a position depends on how many positions are masked,
    // so that every iteration changes something.
    ToyParallelScorer m;
    m.length_lp = s.length_lp;
    m.dist = [](int, int pos, const std::vector<int>& d) -> std::map<int, double> {
      int masked = 0;
      for (int t : d) masked += t == MASK;
      const double top = 0.95 - 0.08 * ((pos * 7 + masked) % 5);
      return {{masked % 2 ? A : B, top}, {C, 1 - top}};
    };
    DecodingOptions o;
    o.strategy = Strategy::Nar;
    o.nar_length = NarLength::Given;
    o.nar_given_length = 6;
    o.iterations = 4;
    o.early_stop = false;
    NarSearch search(m, toy_specials(), o, 6);
    Snapshot prev = search.step();
    CHECK(std::count(prev.drafts[0].masked.begin(), prev.drafts[0].masked.end(), 1) == 6);
    while (!search.done()) {
      const Snapshot cur = search.step();
      const auto& d = cur.drafts[0];
      const int expected = NarSearch::masks_at(6, cur.iteration, 4);
      CHECK(std::count(d.masked.begin(), d.masked.end(), 1) == expected);
      // Every re-masked position was no more confident than any kept one.
      float max_masked = -1, min_kept = 2;
      for (int i = 0; i < 6; ++i) {
        const float p = prev.drafts[0].probs[static_cast<size_t>(i)];
        if (d.masked[static_cast<size_t>(i)]) max_masked = std::max(max_masked, p); else min_kept = std::min(min_kept, p);
        if (!d.masked[static_cast<size_t>(i)]) CHECK(d.tokens[static_cast<size_t>(i)] == prev.drafts[0].tokens[static_cast<size_t>(i)]);
      }
      CHECK(max_masked <= min_kept);
      prev = cur;
    }
    CHECK(m.calls == 4);
  }
  SECTION("early stop when an iteration changes nothing") {
    DecodingOptions o;
    o.strategy = Strategy::Nar;
    o.iterations = 10;
    NarSearch search(s, toy_specials(), o, 6);
    search.step();
    const Snapshot second = search.step();
    CHECK_FALSE(second.changed);
    CHECK(second.done);
    CHECK(s.calls == 2);
    o.early_stop = false;
    ToyParallelScorer s2 = s;
    s2.calls = 0;
    NarSearch full(s2, toy_specials(), o, 6);
    while (!full.done()) full.step();
    CHECK(s2.calls > 2);
  }
  SECTION("fixed maximum length, cut at the first EOS") {
    ToyParallelScorer f;
    f.length_lp = s.length_lp;
    f.dist = [](int, int pos, const std::vector<int>&) -> std::map<int, double> {
      if (pos < 2) return {{B, 0.8}, {EOS, 0.2}};
      return {{EOS, 0.7}, {A, 0.3}};
    };
    DecodingOptions o;
    o.strategy = Strategy::Nar;
    o.nar_length = NarLength::Fixed;
    o.iterations = 1;
    NarSearch search(f, toy_specials(), o, 5);
    CHECK(search.lengths() == std::vector<int>{5});
    const Snapshot snap = search.step();
    CHECK(snap.drafts[0].output_length == 2);
    CHECK(search.results().at(0).tokens == std::vector<int>{B, B});
    CHECK(search.results().at(0).score == Approx((2 * std::log(0.8) + std::log(0.7)) / 3).epsilon(1e-5));
  }
  SECTION("a given length outside the model's range is refused") {
    DecodingOptions o;
    o.strategy = Strategy::Nar;
    o.nar_length = NarLength::Given;
    o.nar_given_length = 7;
    CHECK_THROWS_AS(NarSearch(s, toy_specials(), o, 6), UsageError);
  }
}

TEST_CASE("greedy takes the most probable token at every step and stops at the first END", "[search]") {
  // END is the best first token (0.5) but a long continuation scores better on average:
  // greedy must still stop, beam k=1 with average normalisation may go on.
  auto model = [](const std::vector<int>& p) -> std::map<int, double> {
    if (p.empty()) return {{EOS, 0.5}, {A, 0.45}, {B, 0.05}};
    if (p.size() < 4) return {{A, 0.99}, {EOS, 0.01}};
    return {{EOS, 0.99}, {A, 0.01}};
  };
  ToyStepScorer g(model), b(model);
  DecodingOptions greedy = beam(1, LengthNorm::Average);
  ArSearch gs(g, toy_specials(), greedy, {}, 10);
  run_all(gs);
  CHECK(gs.results().at(0).tokens.empty());  // END first: done
  CHECK(g.calls == 1);
  DecodingOptions one = beam(1, LengthNorm::Average);
  one.strategy = Strategy::Beam;
  ArSearch bs(b, toy_specials(), one, {}, 10);
  run_all(bs);
  CHECK(bs.results().at(0).tokens == std::vector<int>{A, A, A, A});  // log(0.45 .99^3 .99)/5 > log(0.5)/1
}

TEST_CASE("non-finite scores end an autoregressive decode with a ModelError, in every strategy", "[search][errors]") {
  // NaN from the second step on (what weights that overflow float arithmetic give), or +infinity.
  for (const double bad : {std::nan(""), HUGE_VAL}) {
    auto model = [bad](const std::vector<int>& p) -> std::map<int, double> {
      if (p.empty()) return {{A, 0.6}, {B, 0.4}};
      return {{A, bad}, {EOS, 0.5}};
    };
    for (Strategy strategy : {Strategy::Greedy, Strategy::Beam, Strategy::Sample}) {
      INFO(to_string(strategy) << ", bad score " << bad);
      DecodingOptions o;
      o.strategy = strategy;
      ToyStepScorer s(model);
      ArSearch search(s, toy_specials(), o, {}, 10);
      search.step();
      CHECK_THROWS_MATCHES(search.step(), ModelError, Catch::Message("model file: the scores of output position 2 are not finite (NaN or infinity): the weights are too large for float arithmetic"));
      // The decode is over: no half-fed scorer is stepped again.
      CHECK(search.done());
      CHECK(search.results().empty());
      CHECK_THROWS_AS(search.step(), UsageError);
      CHECK(s.calls == 2);
    }
  }
}

TEST_CASE("a step where the model allows no token is a ModelError, not an empty result", "[search][errors]") {
  // Every token the search may emit has probability 0 (only PAD has mass).
  auto model = [](const std::vector<int>&) { return std::map<int, double>{{PAD, 1.0}}; };
  for (Strategy strategy : {Strategy::Greedy, Strategy::Beam, Strategy::Sample}) {
    INFO(to_string(strategy));
    DecodingOptions o;
    o.strategy = strategy;
    ToyStepScorer s(model);
    ArSearch search(s, toy_specials(), o, {}, 10);
    CHECK_THROWS_MATCHES(search.step(), ModelError, Catch::Message("model file: no token can be emitted at output position 1: the model gives every allowed token probability 0"));
    CHECK(search.done());
  }
}

TEST_CASE("Mask-Predict: non-finite scores or lengths, and a vocabulary of special tokens only, are ModelErrors", "[search][nar][errors]") {
  ToyParallelScorer s;
  s.length_lp = {std::log(0.1f), std::log(0.2f), std::log(0.4f), std::log(0.3f)};
  s.dist = [](int, int pos, const std::vector<int>&) -> std::map<int, double> {
    if (pos == 1) return {{A, std::nan("")}, {B, 0.5}};
    return {{A, 0.7}, {EOS, 0.3}};
  };
  DecodingOptions o;
  o.strategy = Strategy::Nar;
  for (NarLength how : {NarLength::Predicted, NarLength::Fixed, NarLength::Given}) {
    INFO(to_string(how));
    o.nar_length = how;
    o.nar_given_length = 3;
    NarSearch search(s, toy_specials(), o, 3);
    CHECK_THROWS_MATCHES(search.step(), ModelError, Catch::Message("model file: the scores of output position 2 are not finite (NaN or infinity): the weights are too large for float arithmetic"));
    CHECK(search.done());
    CHECK_THROWS_AS(search.step(), UsageError);
  }
  SECTION("NaN length log-probabilities") {
    s.length_lp[2] = std::nanf("");
    o.nar_length = NarLength::Predicted;
    CHECK_THROWS_WITH(NarSearch(s, toy_specials(), o, 3), Catch::Contains("the scores of the target lengths are not finite"));
  }
  SECTION("no token but the special ones") {
    // Four tokens, all special (no EOS, which a draft may hold): nothing to predict a position with.
    ToyParallelScorer only_specials = s;
    only_specials.vocab = 4;
    only_specials.dist = [](int, int, const std::vector<int>&) { return std::map<int, double>{{PAD, 1.0}}; };
    const SpecialIds specials{PAD, UNK, BOS, -1, 3};
    o.nar_length = NarLength::Predicted;
    CHECK_THROWS_MATCHES(NarSearch(only_specials, specials, o, 3), ModelError,
                         Catch::Message("model file: the target vocabulary has no token that may be emitted, only special tokens"));
  }
}
