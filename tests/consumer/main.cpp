// consumer MODEL WORD [BEAM]: decodes WORD as the CLI's `seq2seq decode --model
// MODEL [--beam BEAM] WORD` does (greedy or beam for an autoregressive model,
// Mask-Predict for a CMLM, default options otherwise) and prints its line,
// WORD<TAB>output<TAB>score, for run.sh to compare with the CLI's. Then checks
// that a word with a character outside the vocabulary is a seq2seq::InputError.
#include <cstdlib>
#include <iostream>
#include <string>

#include <seq2seq/errors.h>
#include <seq2seq/model.h>
#include <seq2seq/session.h>

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::cerr << "usage: consumer MODEL WORD [BEAM]\n";
    return 2;
  }
  try {
    const auto model = seq2seq::Model::from_file(argv[1]);
    seq2seq::DecodingOptions options;
    if (!model->config().autoregressive()) {
      options.strategy = seq2seq::Strategy::Nar;
    } else if (argc == 4) {
      options.strategy = seq2seq::Strategy::Beam;
      options.beam_size = std::atoi(argv[3]);
    }
    seq2seq::Session session(model, options);
    session.start(argv[2]);
    for (const seq2seq::Result& r : session.run()) std::cout << argv[2] << '\t' << r.text << '\t' << r.score << '\n';

    try {
      session.start(std::string(argv[2]) + "\x01");
      std::cerr << "consumer: a control character in the word was accepted\n";
      return 1;
    } catch (const seq2seq::InputError& e) {
      // the exception type the library documents for bad input
    }
  } catch (const seq2seq::Error& e) {
    std::cerr << "consumer: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
