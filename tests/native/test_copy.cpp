// The copy mechanism (pointer-generator, src/copy.h) against PyTorch
// (tests/tools/make_copy_fixtures.py, copy_* fixtures): the mixed output
// distribution over the extended vocabulary, p_gen and the copy attention at every
// step of a Transformer and an RNN reading characters and a Transformer reading
// words, the forced scores, a greedy decode that copies tokens the vocabulary lacks
// (their text the source's), every strategy and the batched decode on it, the
// snapshots' copy fields, and the errors a copy model or a word-level one can meet.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "copy.h"
#include "errors.h"
#include "fixtures.h"
#include "model_access.h"
#include "model_bytes.h"
#include "network.h"
#include "session.h"

using namespace seq2seq;
using namespace seq2seq_test;

namespace {

const std::vector<std::string> kCopyFixtures = {"copy_ar_pre_sin_tied_relu", "copy_rnn_additive", "copy_words_post_learned_untied"};

std::shared_ptr<const Model> load(const std::string& name, Compute compute = Compute::F32) {
  return Model::from_file(fixture_path(name + ".safetensors"), compute);
}

double max_diff(const nlohmann::json& ref, const float* got, size_t n) {
  REQUIRE(ref.size() == n);
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = std::abs(ref[i].get<double>() - static_cast<double>(got[i]));
    if (!(d <= worst)) worst = d;  // NaN propagates as a failure
  }
  return worst;
}

DecodingOptions greedy(const nlohmann::json& g) {
  DecodingOptions o;
  o.strategy = Strategy::Greedy;
  o.max_length = g["max_length"].get<int>();
  o.min_length = g["min_length"].get<int>();
  return o;
}

}  // namespace

TEST_CASE("a copy model's output distribution, p_gen and copy attention match PyTorch at every step", "[parity][copy]") {
  for (const auto& name : kCopyFixtures) {
    SECTION(name) {
      const auto fx = load_json(fixture_path(name + ".json"));
      const auto model = load(name);
      REQUIRE(model->config().copy);
      const double tol = fx["tolerance"].get<double>();
      const int V = model->target_vocab().size();
      for (size_t b = 0; b < fx["sources"].size(); ++b) {
        INFO("example " << b);
        const std::string text = fx["sources"][b].get<std::string>();
        // The source as read, and where copying each of its tokens goes.
        const ReadSource read = ModelAccess::read(*model, text);
        CHECK(read.input.ids == fx["source_ids"][b].get<std::vector<int>>());
        CHECK(read.input.copy.ids == fx["copy_ids"][b].get<std::vector<int>>());
        CHECK(read.input.copy.extra == fx["copy_texts"][b].get<std::vector<std::string>>());
        CHECK(read.output_vocab->size() == V + static_cast<int>(read.input.copy.extra.size()));
        const auto targets = fx["targets"][b].get<std::vector<int>>();
        const auto scorer = ModelAccess::network(*model).step_scorer(read.input, static_cast<int>(targets.size()));
        REQUIRE(scorer->vocab_size() == read.output_vocab->size());
        for (size_t t = 0; t < targets.size(); ++t) {
          INFO("position " << t);
          RowMatrix lp;
          scorer->score({targets[t]}, lp, nullptr);
          const CopyStep* copy = scorer->copy_step();
          REQUIRE(copy);
          CHECK(max_diff(fx["log_probs"][b][t], lp.data(), static_cast<size_t>(lp.cols())) <= tol);
          CHECK(std::abs(fx["p_gen"][b][t].get<double>() - copy->p_gen[0]) <= tol);
          CHECK(max_diff(fx["copy_attn"][b][t], copy->attention.data(), static_cast<size_t>(copy->attention.cols())) <= tol);
          CHECK(lp.row(0).array().exp().sum() == Approx(1.0).epsilon(1e-5));  // one distribution over the extended vocabulary
        }
      }
    }
  }
}

TEST_CASE("a copy model's greedy decode copies tokens the vocabulary lacks, with the source's text", "[parity][copy]") {
  for (const auto& name : kCopyFixtures) {
    SECTION(name) {
      const auto fx = load_json(fixture_path(name + ".json"));
      const auto model = load(name);
      const int V = model->target_vocab().size();
      Session s(model, greedy(fx["greedy"]));
      int copied = 0;
      for (size_t b = 0; b < fx["sources"].size(); ++b) {
        const std::string text = fx["sources"][b].get<std::string>();
        s.start(text);
        std::vector<Snapshot> steps;
        while (!s.done()) steps.push_back(s.step());
        const Result& r = steps.back().results.at(0);
        auto want = fx["greedy"]["tokens"][b].get<std::vector<int>>();
        want.pop_back();  // EOS
        CHECK(r.tokens == want);
        CHECK(r.text == fx["greedy"]["texts"][b].get<std::string>());
        for (int id : r.tokens) copied += id >= V;
        // Every step's hypothesis carries the mix: p_gen, the copy attention, the copy distribution.
        for (const Snapshot& snap : steps) {
          for (const HypothesisView& h : snap.live) {
            REQUIRE(h.p_gen >= 0.0f);
            CHECK(h.p_gen <= 1.0f);
            CHECK(h.copy_attention.size() == static_cast<size_t>(snap.source_length));
            CHECK(std::accumulate(h.copy_attention.begin(), h.copy_attention.end(), 0.0) == Approx(1.0).epsilon(1e-5));
            double mass = 0;
            for (const TokenProb& c : h.copy_probs) mass += c.prob;
            CHECK(mass == Approx(1.0).epsilon(1e-5));
            // A copy-only token has no vocabulary share: its probability is (1 - p_gen) times its copy probability.
            const int last = h.tokens.back();
            if (last >= V) {
              const auto it = std::find_if(h.copy_probs.begin(), h.copy_probs.end(), [&](const TokenProb& c) { return c.token == last; });
              REQUIRE(it != h.copy_probs.end());
              CHECK(h.token_prob == Approx((1.0 - h.p_gen) * it->prob).epsilon(1e-4));
            }
          }
        }
      }
      CHECK(copied > 0);
    }
  }
}

TEST_CASE("the forced score of a target holding copied tokens matches PyTorch, p_gen per position", "[parity][copy]") {
  for (const auto& name : kCopyFixtures) {
    SECTION(name) {
      const auto fx = load_json(fixture_path(name + ".json"));
      const auto model = load(name);
      const Session s(model, DecodingOptions{});
      const double tol = fx["tolerance"].get<double>();
      for (size_t b = 0; b < fx["sources"].size(); ++b) {
        INFO("example " << b);
        const ForcedScore f = s.score(fx["sources"][b].get<std::string>(), fx["forced"]["targets"][b].get<std::string>());
        CHECK(f.text == fx["forced"]["targets"][b].get<std::string>());
        CHECK(max_diff(fx["forced"]["token_logprobs"][b], f.token_logprobs.data(), f.token_logprobs.size()) <= tol);
        CHECK(max_diff(fx["forced"]["p_gen"][b], f.token_p_gen.data(), f.token_p_gen.size()) <= tol);
      }
    }
  }
}

TEST_CASE("every strategy decodes a copy model: results score as forced, the batch equals one by one", "[copy][session]") {
  for (const auto& name : kCopyFixtures) {
    SECTION(name) {
      const auto fx = load_json(fixture_path(name + ".json"));
      const auto model = load(name, Compute::Auto);
      const std::vector<std::string> sources = fx["sources"].get<std::vector<std::string>>();
      DecodingOptions beam;
      beam.strategy = Strategy::Beam;
      beam.beam_size = 4;
      beam.n_best = 3;
      beam.min_length = 2;
      DecodingOptions sample;
      sample.strategy = Strategy::Sample;
      sample.seed = 3;
      sample.n_best = 4;
      sample.max_length = 8;
      DecodingOptions prefix = beam;  // a forced first token the vocabulary lacks
      for (const DecodingOptions& o : {greedy(fx["greedy"]), beam, sample}) {
        Session s(model, o);
        const std::vector<BatchResult> batch = s.run_batch(sources);
        for (size_t b = 0; b < sources.size(); ++b) {
          INFO(to_string(o.strategy) << " example " << b);
          s.start(sources[b]);
          const std::vector<Result> results = s.run();
          REQUIRE_FALSE(batch[b].error);
          REQUIRE(batch[b].results.size() == results.size());
          for (size_t k = 0; k < results.size(); ++k) {
            CHECK(batch[b].results[k].tokens == results[k].tokens);
            CHECK(batch[b].results[k].text == results[k].text);
            CHECK(batch[b].results[k].logprob == Approx(results[k].logprob).margin(1e-5));
            // The forced score reads the distribution search reads: a result's logprob, to the bit's neighbourhood.
            const ForcedScore f = s.score(sources[b], results[k].text);
            CHECK(f.tokens == results[k].tokens);
            CHECK(f.logprob == Approx(results[k].logprob).margin(1e-4));
          }
        }
      }
      // A prefix may name a copy-only token of the source: the decode starts with it.
      const ReadSource read = ModelAccess::read(*model, sources[0]);
      REQUIRE_FALSE(read.input.copy.extra.empty());
      prefix.prefix = read.input.copy.extra[0];
      Session s(model, prefix);
      s.start(sources[0]);
      const std::vector<Result> results = s.run();
      CHECK(results.at(0).tokens.at(0) == model->target_vocab().size());
      CHECK(results.at(0).text.rfind(read.input.copy.extra[0], 0) == 0);
    }
  }
}

TEST_CASE("inspect shows a copy model's mix, and takes copied tokens as the decoder's input", "[copy][inside]") {
  const auto model = load("copy_words_post_learned_untied");
  const int V = model->target_vocab().size();
  const std::string source = "my name is kuroro";
  // "my" is a target word; "name", "is" and "kuroro" are not: ids V, V + 1, V + 2 in this source's output,
  // "kuroro" in no vocabulary at all (the encoder reads it as unk).
  const auto vocab = model->output_vocab(source);
  REQUIRE(vocab->size() == V + 3);
  CHECK(vocab->token(V + 2) == "kuroro");
  const int kuroro = V + 2, hello = model->target_vocab().id("hello");
  const StepInside in = model->inspect(source, {kuroro, hello});
  CHECK(in.copy);
  CHECK(in.output_vocab_size == V + 3);
  CHECK(in.copy_ids == std::vector<int>{model->target_vocab().id("my"), V, V + 1, V + 2});
  CHECK(in.target == std::vector<int>{model->config().tgt_specials.bos, kuroro, hello});
  CHECK(in.p_gen.size() == 3);
  REQUIRE(in.log_probs.size() == static_cast<size_t>(3 * (V + 3)));
  // Each position's distribution is what a decode's step reads after the same tokens, the copied one fed back as unk.
  const auto scorer = ModelAccess::network(*model).step_scorer(ModelAccess::read(*model, source).input, 4);
  RowMatrix lp;
  int t = 0;
  for (int tok : {model->config().tgt_specials.bos, kuroro, hello}) {
    scorer->score({tok}, lp, nullptr);
    for (int w = 0; w < V + 3; ++w) CHECK(in.log_probs[static_cast<size_t>(t * (V + 3) + w)] == Approx(lp(0, w)).margin(1e-5));
    CHECK(in.p_gen[static_cast<size_t>(t)] == Approx(scorer->copy_step()->p_gen[0]).margin(1e-6));
    ++t;
  }
  CHECK_THROWS_AS(model->inspect(source, {V + 3}), InputError);
  CHECK_THROWS_WITH(model->inspect(source, {V + 3}), Catch::Contains("outside the output vocabulary"));
  CHECK(model->output_vocab("i am bob")->size() == V + 2);  // "i" and "am"; "bob" is a target word
  // A model without the copy mechanism shows none, and its output vocabulary is its target vocabulary.
  const auto plain = Model::from_file(fixture_path("rnn_additive.safetensors"));
  CHECK_FALSE(plain->inspect("ABC", {}).copy);
  CHECK(plain->output_vocab("ABC").get() == &plain->target_vocab());
}

TEST_CASE("a word-level source's texts: what a copy model copies, an unknown word its own", "[copy][tokenizer]") {
  const Vocabulary v({"<pad>", "<unk>", "my", "name", "is"});
  std::vector<std::string> texts;
  const std::vector<int> ids = tokenize_source("  My name  IS kuroro\n", v, CaseFold::Lower, 8, SourceTokens::Words, 1, &texts);
  CHECK(ids == std::vector<int>{2, 3, 4, 1});
  CHECK(texts == std::vector<std::string>{"my", "name", "is", "kuroro"});
  // Characters give their own texts, folded.
  const Vocabulary chars({"<pad>", "<unk>", "A", "B"});
  CHECK(tokenize_source("ab", chars, CaseFold::Upper, 8, SourceTokens::Chars, 1, &texts) == std::vector<int>{2, 3});
  CHECK(texts == std::vector<std::string>{"A", "B"});
  // The copy map of a word-level model's source: "kuroro", read as <unk>, is still copied as itself.
  const auto model = load("copy_words_post_learned_untied");
  const ReadSource read = ModelAccess::read(*model, "My name is Kuroro");
  CHECK(read.input.ids.back() == model->config().src_specials.unk);
  CHECK(read.output_vocab->token(read.input.copy.ids.back()) == "kuroro");
}

TEST_CASE("the copy map: a source's tokens to the target vocabulary's, the rest past it", "[copy]") {
  const Vocabulary tgt({"<pad>", "<unk>", "<s>", "</s>", "hello", "bob"});
  SpecialIds sp;
  sp.pad = 0, sp.unk = 1, sp.bos = 2, sp.eos = 3;
  const CopyMap m = copy_map({"bob", "zed", "hello", "zed", "</s>", "kuroro"}, tgt, sp);
  CHECK(m.ids == std::vector<int>{5, 6, 4, 6, 7, 8});  // a special's text is no token to emit: copy-only
  CHECK(m.extra == std::vector<std::string>{"zed", "</s>", "kuroro"});
  // The mix, in log space: a token both share, one generated only, one copied only.
  RowMatrix lp(1, 6), attention(1, 3), out;
  lp << std::log(0.1f), std::log(0.1f), std::log(0.1f), std::log(0.1f), std::log(0.4f), std::log(0.2f);
  attention << 0.5f, 0.25f, 0.25f;
  const float gate = std::log(0.8f / 0.2f);  // p_gen 0.8
  mix_copy(lp, &gate, attention, {5, 6, 4}, 1, out);
  REQUIRE(out.cols() == 7);
  CHECK(std::exp(out(0, 5)) == Approx(0.8 * 0.2 + 0.2 * 0.5));
  CHECK(std::exp(out(0, 3)) == Approx(0.8 * 0.1));
  CHECK(std::exp(out(0, 6)) == Approx(0.2 * 0.25));
  CHECK(std::exp(out(0, 4)) == Approx(0.8 * 0.4 + 0.2 * 0.25));
  CHECK(out.row(0).array().exp().sum() == Approx(1.0));
  // Far out in either direction the gate stays finite in log space.
  for (float g : {-200.0f, 200.0f}) {
    mix_copy(lp, &g, attention, {5, 6, 4}, 1, out);
    CHECK(out.allFinite());
  }
}

TEST_CASE("a copy model's configuration is checked, and the CMLM and ensembles refuse copying", "[copy][model_file]") {
  const auto bytes = read_bytes(fixture_path("copy_rnn_additive.safetensors"));
  auto with = [&](auto&& edit) {
    Parts p = split(bytes);
    json c = config_of(p);
    edit(p, c);
    set_config(p, c);
    return load_error(join(p));
  };
  CHECK(with([](Parts&, json&) {}).empty());
  CHECK_THAT(with([](Parts&, json& c) { c["attention"] = "none"; c["attn_dim"] = 0; }),
             Catch::Matchers::Contains("copies through the attention"));
  CHECK_THAT(with([](Parts&, json& c) { c["tgt_specials"].erase("unk"); }), Catch::Matchers::Contains("needs 'unk' in tgt_specials"));
  CHECK_THAT(with([](Parts&, json& c) { c["copy"] = "yes"; }), Catch::Matchers::Contains("'copy' is not true/false"));
  CHECK_THAT(with([](Parts&, json& c) { c["copy"] = false; }), Catch::Matchers::Contains("unexpected tensor 'copy_gate."));
  CHECK_THAT(with([](Parts& p, json&) { p.header.erase("copy_gate.bias"); }), Catch::Matchers::Contains("missing tensor 'copy_gate.bias'"));
  // A CMLM predicts every position at once: the copy flag is refused, naming why.
  Parts cmlm = split(valid_file());
  json c = config_of(cmlm);
  c["copy"] = true;
  set_config(cmlm, c);
  CHECK_THAT(load_error(join(cmlm)), Catch::Matchers::Contains("needs an autoregressive model"));
  const auto model = load("copy_rnn_additive");
  CHECK_THROWS_AS(Model::ensemble({model, model}), UsageError);
  CHECK_THROWS_WITH(Model::ensemble({model, model}), Catch::Contains("copy mechanism"));
}
